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
    "an Intel Xeon with VNNI": cpu.CpuDescription(
        "Linux", "x86_64", frozenset("avx2 avx512f avx512bw avx512_vnni".split()), True),
    "AMD Zen 4 (VNNI and bfloat16)": cpu.CpuDescription(
        "Linux", "x86_64", frozenset("avx2 avx512f avx512bw avx512_vnni avx512_bf16".split()), True),
    # Alder Lake and later laptops: 256-bit AVX-VNNI, no AVX-512; fbgemm runs its AVX2 kernel there
    "an Intel laptop with AVX-VNNI": cpu.CpuDescription(
        "Linux", "x86_64", frozenset("avx avx2 fma f16c avx_vnni".split()), True),
    "a Skylake server (AVX-512, no VNNI)": cpu.CpuDescription(
        "Linux", "x86_64", frozenset("avx2 avx512f avx512bw".split()), True),
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


@pytest.mark.parametrize("name, bits", [("an Intel Xeon with VNNI", 8), ("AMD Zen 4 (VNNI and bfloat16)", 8),
                                        ("an Intel laptop with AVX-VNNI", 7), ("an AVX2-only laptop", 7),
                                        ("a Skylake server (AVX-512, no VNNI)", 7)])
def test_activation_bits_follow_the_kernel_that_runs_not_the_flags_name(name, bits):
    # AVX-VNNI is "VNNI" by name, but fbgemm has no code for it: its AVX2 kernel would saturate on 8 bits
    assert cpu.int8_activation_bits(CPUS[name]) == bits


@pytest.mark.parametrize("name, family", [("an Intel Xeon with VNNI", "avx512"), ("an AVX2-only laptop", "avx2"),
                                          ("an Intel laptop with AVX-VNNI", "avx2"), ("a Linux ARM server", "arm64"),
                                          ("an ARM Mac (M1)", "arm64"), ("Windows on an AVX2 laptop", "other")])
def test_the_family_a_claim_names(name, family):
    assert cpu.family(CPUS[name]) == family


def test_a_process_limited_to_avx2_reads_an_avx2_cpu(monkeypatch):
    """What `make test-avx2` sets: torch's libraries and this module see the same CPU."""
    monkeypatch.setattr(cpu, "_linux_flags", lambda: frozenset("avx avx2 fma avx512f avx512bw avx512_vnni".split()))
    monkeypatch.setattr(cpu.platform, "system", lambda: "Linux")
    monkeypatch.setattr(cpu.platform, "machine", lambda: "x86_64")
    assert cpu.family() == "avx512"
    for name, value in cpu.AVX2_ONLY.items():
        monkeypatch.setenv(name, value)
    assert cpu.cpu_flags() == frozenset({"avx", "avx2", "fma"}) and cpu.family() == "avx2"
    assert cpu.int8_activation_bits() == 7 and cpu.best_dtype() == "bfloat16"
