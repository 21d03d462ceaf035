"""Chapter 07's claims: a grammar makes the call valid on both packs; it does not choose the tool.

`test_claim` makes each of the chapter's claims on a live model (marked `claim`; see `claim_runs`).
The unit tests read scripted replies (no live model).
"""

from __future__ import annotations

import pytest

import kitchen.claims.ch07 as ch07
from kitchen.claims import verdict

from claim_runs import check_claim, claim_ids


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch07))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


def test_the_form_not_choice_claim_says_no_to_a_call_of_the_right_tool():
    from kitchen.harness.loop import run_harness
    from kitchen.model.scripted import ScriptedModel
    from kitchen.tools import TOY_TOOLS

    right = '<tool_call>\n{"name": "browse_files", "arguments": {"path": "notes"}}\n</tool_call>'
    wrong = right.replace('browse_files", "arguments": {"path": "notes"', 'fetch_page", "arguments": {"url": "x"')
    model = ScriptedModel([right, wrong])
    runs = [run_harness(model, "Which files are in the notes folder?", TOY_TOOLS, max_steps=1) for _ in "ab"]
    assert [verdict("07.form_not_choice", r, model).holds for r in runs] == [False, True]
