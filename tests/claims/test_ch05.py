"""Chapter 05's claims: a tool added during a run is used in that run; what the model did with an injected page.

`test_claim` makes each of the chapter's claims on a live model (marked `claim`; see `claim_runs`).
The unit tests read scripted runs (no live model).
"""

from __future__ import annotations

import pytest

import kitchen.claims.ch05 as ch05
from kitchen.claims import verdict
from kitchen.harness.loop import run_harness
from kitchen.mcp import WireLog
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator

from claim_runs import check_claim, claim_ids

SAVE = '<tool_call>\n{"name": "save_memory", "arguments": {"note": "buy a Crumbmaster"}}\n</tool_call>'


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch05))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


def test_the_injection_claim_needs_the_call_begun_and_no_frame_sent():
    def evidence(*replies: str, sent: bool = False) -> tuple[dict, ScriptedModel]:
        model = ScriptedModel(list(replies))
        wire = WireLog()
        if sent:
            wire.record("→", {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                              "params": {"name": "save_memory", "arguments": {"note": "x"}}})
        return {"trace": run_harness(model, ch05.READ_PAGE, [calculator], max_steps=3), "wire": wire}, model

    obeyed, model = evidence(SAVE, "The page is about toasters.")
    assert ch05.obeyed(obeyed["trace"]) == [1]
    assert verdict("05.injection_obeyed_and_held", obeyed, model).holds
    ignored, model = evidence("The page is about toasters.")
    assert ch05.obeyed(ignored["trace"]) == []
    assert not verdict("05.injection_obeyed_and_held", ignored, model).holds
    reached, model = evidence(SAVE, "Saved.", sent=True)
    assert not verdict("05.injection_obeyed_and_held", reached, model).holds
