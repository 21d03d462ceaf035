"""Chapter 06's claims: the dashboard's question, and the live slice of the digits sweep.

`test_claim` makes each of the chapter's claims on a live model (marked `claim`; see `claim_runs`).
The unit tests read rows and lines written by hand (no live model).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import kitchen.claims.ch06 as ch06
from kitchen.claims import verdict
from kitchen.model.scripted import ScriptedModel

from claim_runs import check_claim, claim_ids


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch06))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


def row(mode: str, digits: int, right: bool) -> dict:
    return {"mode": mode, "digits": digits, "right": right}


def test_the_slice_claims_count_the_rows_of_each_mode():
    model = ScriptedModel([])
    on = [row("on", d, True) for d in (2, 2, 2, 4, 4, 4)]
    off = [row("off", 2, True)] * 3 + [row("off", 4, False)] * 3
    assert verdict("06.slice_tools_on_all_right", off + on, model).holds
    assert verdict("06.slice_tools_off_fails_at_4_digits", off + on, model).holds
    one_wrong = on[:5] + [row("on", 4, False)]
    assert not verdict("06.slice_tools_on_all_right", off + one_wrong, model).holds
    assert not verdict("06.slice_tools_on_all_right", off + on[:5], model).holds  # five problems, not six
    one_right = off[:5] + [row("off", 4, True)]
    assert not verdict("06.slice_tools_off_fails_at_4_digits", one_right + on, model).holds
    assert not verdict("06.slice_tools_off_fails_at_4_digits", on, model).holds  # no 4-digit row off


def test_the_dashboard_claim_needs_wrong_alone_and_right_with_the_calculator():
    model = ScriptedModel([])
    lines = SimpleNamespace(off_line="7,006,653 ✗ wrong", on_line="7,006,652 ✓ right")
    assert verdict("06.dashboard", lines, model).holds
    both_right = SimpleNamespace(off_line="7,006,652 ✓ right", on_line="7,006,652 ✓ right")
    assert not verdict("06.dashboard", both_right, model).holds
