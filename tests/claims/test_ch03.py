"""Chapter 03's claims: the 1.5B pack chains two tools and recovers from an error; the 0.5B does neither.

`test_claim` makes each of the chapter's claims on a live model (marked `claim`; see `claim_runs`).
The unit tests read the chapter's recordings (data/recordings/), where the other tier did the
opposite of what a claim says of its own tier, and scripted replies: no live model.
"""

from __future__ import annotations

import pytest

import kitchen.claims.ch03 as ch03
from kitchen.claims import verdict

from claim_runs import check_claim, claim_ids


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch03))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


def test_the_chain_claim_holds_on_the_1_5b_run_and_not_on_the_0_5b_run(replays):
    big, small = (verdict("03.chain", ch03.chain_run(replays[t]), replays[t]) for t in ("1.5b", "0.5b"))
    assert big.holds and not small.holds
    assert "NO" in small.line() and "yes" in big.line()


def test_the_one_call_claim_says_no_to_a_reply_with_two_calls():
    from kitchen.model.scripted import ScriptedModel

    call = '<tool_call>\n{{"name": "calculator", "arguments": {{"expression": "{}"}}}}\n</tool_call>'
    one, two = call.format("12 * 34"), call.format("12 * 34") + "\n" + call.format("56 * 78")
    runs = [ch03.two_products_run(ScriptedModel([reply, "Done."])) for reply in (one, two)]
    assert [len(r.results) for r in runs] == [1, 2]
    assert [verdict("03.one_call_small", r, ScriptedModel([])).holds for r in runs] == [True, False]
