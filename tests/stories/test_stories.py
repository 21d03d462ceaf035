"""The story suite: every chapter claim about a live model, made and checked on a live run.

Each claim (`kitchen.stories`) names the settings it was measured on (model, source, engine
setting). There it is asserted: when it stops holding, the test fails and names the chapter and the
claim. On any other setting (another CPU's default engine setting, the canonical hub model, a
replay) its verdict is reported at the end of the run, hold or not, without failing.

The source comes from KITCHEN_MODEL as everywhere (`make test` sets `pack`), except for a claim the
chapter shows from a recording; a tier in KITCHEN_MODEL overrides each claim's tier, and the claims
then report on that tier.
"""

from __future__ import annotations

import pytest

from kitchen.models import load_model
from kitchen.stories import CLAIMS, verdict

pytestmark = pytest.mark.story
# Claims that read the same run (the same run function on the same model) share it: greedy
# decoding makes it the same run anyway, and the suite stays quick.
RUNS: dict[tuple, object] = {}


@pytest.mark.parametrize("claim_id", sorted(CLAIMS))
def test_claim(claim_id, require_tier, report):
    claim = CLAIMS[claim_id]
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
