"""Claims suite set-up: the 1.5B pack's presence, the verdicts reported where a claim was not measured,
and both tiers replayed from the chapters' recordings (for the unit tests).

This folder is put on sys.path, so that the chapters' files import the suite's shared machinery
(`claim_runs`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kitchen.model import packs
from kitchen.model.load import load_model
from kitchen.model.selection import TIERS, choose, hub_is_cached, hub_is_reachable
from kitchen.settings import current

from end_of_run import reporter

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def require_tier():
    """Skip a claim whose model is missing (its tier's pack, or the hub model with no cache and no
    network), unless KITCHEN_REQUIRE_1_5B=1 (as in CI) makes a missing pack a failure."""
    def check(tier: str, source: str | None = None) -> None:
        tier, source, _ = choose(tier, source)
        if source == "pack" and not packs.is_installed(TIERS[tier].pack):
            if current().require_1_5b:
                pytest.fail(f"the {tier} pack is not installed (make venv installs it)")
            pytest.skip(f"the {tier} pack is not installed (make venv installs it)")
        if source == "hub" and not hub_is_cached(tier) and not hub_is_reachable():
            pytest.skip(f"{TIERS[tier].hub_id} is not in {current().hub_cache} and the hub cannot be reached")
    return check


@pytest.fixture(scope="module")
def replays():
    """Both tiers replayed from the chapters' recordings (data/recordings/): no live model."""
    return {tier: load_model(tier, "replay", announce=False) for tier in ("0.5b", "1.5b")}


pytest_configure, report, pytest_terminal_summary = reporter(
    "claims reported, not asserted (not measured on this setting)")
