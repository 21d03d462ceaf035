"""Chapter 09's claims: the 1.5B pack does the 987 × 654 tool loop through both official SDKs.

`test_claim` makes each claim on a live model (marked `claim`; see `claim_runs`). The unit tests run
the claims' own loops on scripted replies (no live model) and read them.
"""

from __future__ import annotations

import pytest

import kitchen.claims.ch09 as ch09
from kitchen.claims import verdict
from kitchen.model.scripted import ScriptedModel

from claim_runs import check_claim, claim_ids

CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "987 * 654"}}\n</tool_call>'


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch09))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


@pytest.mark.parametrize("claim_id, loop", [("09.openai_loop_large", ch09.openai_loop),
                                            ("09.anthropic_loop_large", ch09.anthropic_loop)])
def test_the_loop_claims_say_yes_to_a_call_then_the_answer_and_no_otherwise(claim_id, loop):
    runs = {"call, then the answer": [CALL, "987 × 654 = 645,498."],
            "a wrong answer": [CALL, "987 × 654 = 645,398."],
            "no call": ["987 × 654 = 645,498."],
            "another expression": [CALL.replace("987 * 654", "987 + 654"), "It is 645,498."]}
    holds = {name: verdict(claim_id, loop(ScriptedModel(replies)), ScriptedModel([])).holds
             for name, replies in runs.items()}
    assert holds == {"call, then the answer": True, "a wrong answer": False, "no call": False,
                     "another expression": False}
