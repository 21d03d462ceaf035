"""The claims suite's shared machinery: a chapter claim about a live model, made and checked on a live run.

Each claim (`kitchen.claims`) names the settings it was measured on (model, source, engine
setting). There it is asserted: when it stops holding, the test fails and names the chapter and the
claim. On any other setting (another CPU's default engine setting, the canonical hub model, a
replay) its verdict is reported at the end of the run, hold or not, without failing.

The source comes from KITCHEN_MODEL as everywhere (`make test` sets `pack`), except for a claim the
chapter shows from a recording; a tier in KITCHEN_MODEL overrides each claim's tier, and the claims
then report on that tier.

Within `make test` the notebooks phase has just run every chapter live, and each verdict cell wrote
its verdict to a file (KITCHEN_CLAIMS_FROM names it). A claim whose chapter showed it on a setting
it was measured on is checked on those verdicts (the chapter's own live run) instead of being run
a second time; any other claim is run here.

Each `test_chNN.py` runs its chapter's claims through `check_claim` (marked `claim`: `make
test-claims` runs `pytest tests/claims -m claim`).
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from kitchen.model.load import load_model
from kitchen.claims import CLAIMS, by_chapter, verdict
from kitchen.claims.core import shown_verdicts
from kitchen.settings import current

# Claims that read the same run (the same run function on the same model) share it, across the
# chapters' files: greedy decoding makes it the same run anyway, and the suite stays quick.
RUNS: dict[tuple, object] = {}


def shown_in_notebooks() -> dict[str, list[dict]]:
    """The verdicts the notebooks phase's verdict cells wrote, by claim id (none outside `make test`)."""
    path = current().claims_from
    shown: dict[str, list[dict]] = {}
    for v in shown_verdicts(path) if path else []:
        shown.setdefault(v["claim"], []).append(v)
    return shown


@cache
def shown() -> dict[str, list[dict]]:
    """`shown_in_notebooks()`, read once, when the first claim is checked (not when the unit phase
    collects the chapters' files)."""
    return shown_in_notebooks()


def claim_ids(chapter: ModuleType) -> list[str]:
    """The ids of the claims of a chapter module (`kitchen.claims.ch03`), sorted."""
    number = chapter.__name__.rpartition(".")[2].removeprefix("ch")
    return sorted(c.id for c in by_chapter(number))


def check_claim(claim_id: str, require_tier, report) -> None:
    """Check one claim: on the notebooks' verdicts if its chapter showed it where it was measured,
    else on a run made here (asserted where measured, reported elsewhere)."""
    claim = CLAIMS[claim_id]
    shown_here = shown().get(claim_id, [])
    if any(v["measured_here"] for v in shown_here):
        failed = [v["line"] for v in shown_here if v["measured_here"] and not v["holds"]]
        assert not failed, f"chapter {claim.chapter}: the claim no longer holds. " + " | ".join(failed)
        return
    require_tier(claim.tier, claim.source)
    model = load_model(claim.tier, claim.source, announce=False)
    key = (claim.run, model.info)
    if key not in RUNS:
        RUNS[key] = claim.run(model)
    v = verdict(claim_id, RUNS[key], model)
    if v.measured_here:
        assert v.holds, f"chapter {claim.chapter}: the claim no longer holds. {v.line()}"
    else:
        report(v.line())
