"""The claims suite: every chapter claim about a live model, made and checked on a live run.

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
"""

from __future__ import annotations


import pytest

from kitchen.model.load import load_model
from kitchen.claims import CLAIMS, verdict
from kitchen.claims.core import shown_verdicts
from kitchen.settings import current

pytestmark = pytest.mark.claim
# Claims that read the same run (the same run function on the same model) share it: greedy
# decoding makes it the same run anyway, and the suite stays quick.
RUNS: dict[tuple, object] = {}


def shown_in_notebooks() -> dict[str, list[dict]]:
    """The verdicts the notebooks phase's verdict cells wrote, by claim id (none outside `make test`)."""
    path = current().claims_from
    shown: dict[str, list[dict]] = {}
    for v in shown_verdicts(path) if path else []:
        shown.setdefault(v["claim"], []).append(v)
    return shown


SHOWN = shown_in_notebooks()


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_claim(claim_id, require_tier, report):
    claim = CLAIMS[claim_id]
    shown = SHOWN.get(claim_id, [])
    if any(v["measured_here"] for v in shown):
        failed = [v["line"] for v in shown if v["measured_here"] and not v["holds"]]
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
