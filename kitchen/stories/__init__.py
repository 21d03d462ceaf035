"""The chapters' claims about what a live model does (`core`), one module of claims per chapter.

>>> from kitchen.stories import CLAIMS
>>> len(CLAIMS) >= 15
True
"""

from .core import CLAIMS, Claim, Verdict, by_chapter, show, verdict
from . import ch01, ch02, ch03, ch04, ch05, ch06, ch07  # noqa: F401  (each registers its claims)

__all__ = ["CLAIMS", "Claim", "Verdict", "by_chapter", "show", "verdict"]
