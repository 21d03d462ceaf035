"""Choosing a tier and a source, and the reason given for them (no model is loaded here)."""

import time

import pytest

from kitchen.model import selection
from kitchen.model.selection import choose, parse_choice


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
    monkeypatch.setattr(selection, "hub_is_cached", lambda tier, cache=None: state["cached"])
    monkeypatch.setattr(selection, "hub_is_reachable", lambda timeout=2.0: state["reachable"])
    monkeypatch.setattr(selection.packs, "is_installed", lambda spec: state["pack"])
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
    world["reachable"] = True  # offline: the hub is not even probed
    asked = []
    monkeypatch.setattr(selection, "hub_is_reachable", lambda timeout=2.0: asked.append(timeout) or True)
    assert choose()[1] == "replay" and asked == []


def test_reachability_check_gives_up_within_its_timeout(monkeypatch):
    def slow_connect(*args, **kwargs):
        time.sleep(5)
        raise OSError("no answer")

    monkeypatch.setattr(selection.socket, "create_connection", slow_connect)
    t0 = time.perf_counter()
    assert selection.hub_is_reachable(timeout=0.2) is False
    assert time.perf_counter() - t0 < 1


def test_unknown_tier_or_source():
    with pytest.raises(ValueError, match="Unknown tier"):
        choose("7b")
    with pytest.raises(ValueError, match="Unknown source"):
        choose("0.5b", "cloud")
