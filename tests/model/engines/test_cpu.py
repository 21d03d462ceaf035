"""What the CPU can do, and the default engine setting chosen from it (no model is loaded here)."""

import pytest

from kitchen.model.engines import cpu


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
