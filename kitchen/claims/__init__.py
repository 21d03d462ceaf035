"""The chapters' claims about what a live model does, and their verdicts.

- `core`: `Claim`, `ClaimVerdict`, `verdict` and `show` (a notebook's verdict cell).
- `ch01` … `ch07`, `ch09`: each chapter's claims (chapter 08's numbers are BFCL's grader's, committed as runs): the run that shows each, and how to read it.
- `registry`: every chapter's claims, registered.

>>> from kitchen.claims import CLAIMS
>>> len(CLAIMS) >= 15
True
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.claims.registry": ["CLAIMS", "ClaimVerdict", "by_chapter", "show", "verdict"],
    "kitchen.claims.ch02": ["with_and_without_examples"],
    "kitchen.claims.ch05": ["obeyed"],
})
