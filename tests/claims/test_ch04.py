"""Chapter 04's claims: a tags-only harness misses the small pack's calls; prompt formats on both packs.

`test_claim` makes each of the chapter's claims on a live model (marked `claim`; see `claim_runs`).
The unit tests read the chapter's recordings (data/recordings/), where the other tier did the
opposite of what a claim says of its own tier: no live model.
"""

from __future__ import annotations

import pytest

import kitchen.claims.ch04 as ch04
from kitchen.claims import verdict

from claim_runs import check_claim, claim_ids


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch04))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


def test_the_prompt_format_claim_holds_on_the_1_5b_run_and_not_on_the_0_5b_run(replays):
    big, small = (verdict("04.prompt_format_works", ch04.fenced_format(replays[t]), replays[t])
                  for t in ("1.5b", "0.5b"))
    assert big.holds and not small.holds
