"""Every chapter's claims, registered: import this, not `core`, to see them all.

Each chapter module registers its claims in `core.CLAIMS` when it is imported; this module imports
them all, so a verdict cell can name any claim.

>>> sorted({c.chapter for c in CLAIMS.values()})
['01', '02', '03', '04', '05', '06', '07', '09']
"""

from __future__ import annotations

from kitchen.claims import ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch09  # noqa: F401  (each registers its claims)
from kitchen.claims.core import CLAIMS, ClaimVerdict, by_chapter, show, verdict

CHAPTERS = (ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch09)

__all__ = ["CHAPTERS", "CLAIMS", "ClaimVerdict", "by_chapter", "show", "verdict"]
