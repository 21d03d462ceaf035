"""Chapter 01's claims: arithmetic without tools is wrong, with the calculator right.

`test_claim` makes each of the chapter's claims on a live model (marked `claim`; see `claim_runs`).
The unit tests read scripted replies (no live model): a verdict says yes or no as the reply does.
"""

from __future__ import annotations

import pytest

import kitchen.claims.ch01 as ch01
from kitchen.claims import verdict
from kitchen.model.scripted import ScriptedModel

from claim_runs import check_claim, claim_ids


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch01))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


def test_the_tools_off_claims_read_the_answer_in_the_reply():
    def verdicts(text: str) -> list[bool]:
        model = ScriptedModel([text])
        reply = ch01.tools_off(model)
        return [verdict(c, reply, model).holds
                for c in ("01.wrong_without_tools", "01.digits_one_token_each", "01.departs_after_a_right_start")]

    assert verdicts("1234 × 5678 = 7,006,653.") == [True, True, True]  # right start, wrong last digit
    assert verdicts("1234 × 5678 = 7006652.") == [False, True, False]  # right: not the claim
    assert verdicts("I would need a calculator.") == [False, False, False]  # no number at all
