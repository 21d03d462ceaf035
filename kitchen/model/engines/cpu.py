"""This CPU: its instruction sets, its family, and the engine setting (dtype) chosen from them.

The one place the project reads the CPU. `cpu_flags` (no torch) is what llama.cpp's build switches
come from (`kitchen.model.server.build`); `this_cpu` adds whether torch has its x86 int8 kernels;
`family` names the instruction-set family a claim was measured on ("avx2", "avx512", "arm64");
`best_dtype` decides from a `CpuDescription` alone, so a test can hand it any machine's.

A process can be told to use AVX2 only on an AVX-512 CPU, the way a learner's laptop runs: the
libraries' own variables (`FBGEMM_ENABLE_INSTRUCTIONS=AVX2 ATEN_CPU_CAPABILITY=avx2
ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2`, `AVX2_ONLY` below) restrict torch's kernels,
and this module reads the same variables (`kitchen.settings`) and hides every instruction set past
AVX2, so the engine, the claims and llama.cpp's build all see the CPU the kernels see.

>>> best_dtype(CpuDescription("Darwin", "arm64", frozenset({"FEAT_BF16"}), int8_engine=False))
'bfloat16'
>>> family(CpuDescription("Linux", "x86_64", frozenset({"avx2", "avx512f"}), int8_engine=True))
'avx512'
"""

from __future__ import annotations

import functools
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kitchen.model.interface import Dtype
from kitchen.settings import ISA_LIMIT_VARS, current

X86 = ("x86_64", "amd64", "i686", "x86")
ARM = ("arm64", "aarch64")
MAC_FEATURES = ("FEAT_BF16", "FEAT_I8MM", "FEAT_DotProd")  # sysctl hw.optional.arm.<name>, 1 when present
# What a process is given to run as an AVX2-only CPU does (each library's own switch).
AVX2_ONLY = dict(zip(ISA_LIMIT_VARS, ("AVX2", "avx2", "AVX2", "AVX2")))
# Instruction sets past AVX2, hidden when the process is limited to AVX2 (flags as Linux names them).
PAST_AVX2 = ("avx512", "avx_vnni", "amx", "avx10", "avx_ifma", "avx_ne_convert")


@dataclass(frozen=True)
class CpuDescription:
    """What the engine choice needs to know about a CPU.

    `system` and `machine` as `platform` names them ("Linux", "x86_64"; "Darwin", "arm64"); `flags`
    the features the OS lists (Linux: /proc/cpuinfo's flags; macOS: the `MAC_FEATURES` that are 1);
    `int8_engine`: torch was built with the x86 int8 kernels (fbgemm)."""

    system: str
    machine: str
    flags: frozenset[str]
    int8_engine: bool

    @property
    def x86(self) -> bool:
        return self.machine.lower() in X86


def limit_to_avx2(flags: frozenset[str]) -> frozenset[str]:
    """The flags an AVX2-limited process may use: every set past AVX2 hidden.

    >>> sorted(limit_to_avx2(frozenset({"avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_tile"})))
    ['avx2', 'fma']
    """
    return frozenset(f for f in flags if not f.startswith(PAST_AVX2))


@functools.cache
def _linux_flags() -> frozenset[str]:
    """The first CPU's feature flags as Linux lists them (empty elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features")):  # x86 says flags, ARM says Features
                return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def _mac_features() -> frozenset[str]:
    found = set()
    for name in MAC_FEATURES:
        try:
            out = subprocess.run(["sysctl", "-n", f"hw.optional.arm.{name}"], capture_output=True, text=True,
                                 timeout=2)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.stdout.strip() == "1":
            found.add(name)
    return frozenset(found)


def cpu_flags() -> frozenset[str]:
    """This CPU's feature flags, less those the process was told not to use (`AVX2_ONLY`)."""
    system = platform.system()
    flags = _linux_flags() if system == "Linux" else _mac_features() if system == "Darwin" else frozenset()
    return limit_to_avx2(flags) if current().isa_limit == "avx2" else flags


def this_cpu() -> CpuDescription:
    """This machine's CPU (torch is imported to ask for its int8 kernels: only when a model loads)."""
    import torch

    return CpuDescription(platform.system(), platform.machine(), cpu_flags(),
                          "fbgemm" in torch.backends.quantized.supported_engines)


def family(cpu: CpuDescription | None = None) -> str:
    """The instruction-set family a result was measured on: "avx512", "avx2", "arm64", or "other"
    (an x86 CPU whose flags the OS does not list, Windows say). Kernels pick their code by family,
    and greedy replies can part between families at a near tie."""
    if cpu is None:
        cpu = CpuDescription(platform.system(), platform.machine(), cpu_flags(), int8_engine=False)
    if cpu.machine.lower() in ARM:
        return "arm64"
    return "avx512" if "avx512f" in cpu.flags else "avx2" if "avx2" in cpu.flags else "other"


def cpu_model() -> str:
    """The CPU's model name as /proc/cpuinfo gives it, else what `platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name") and ":" in line:
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "an unknown CPU"


def int8_activation_bits(cpu: CpuDescription | None = None) -> int:
    """How many bits torch's int8 kernel (fbgemm) can give activations without its sums saturating.

    Only fbgemm's AVX-512 VNNI kernel multiplies 8-bit by 8-bit numbers straight into 32-bit sums.
    Its AVX2 and plain AVX-512 kernels add pairs of products into 16 bits first, which 8-bit
    activations can overflow; so there it gets 7 bits, as torch's own dynamic Linear does. A CPU
    with AVX-VNNI and no AVX-512 (Intel's laptops since Alder Lake) runs the AVX2 kernel: fbgemm
    has no AVX-VNNI code, so the flag's name does not decide, the kernel does.

    >>> int8_activation_bits(CpuDescription("Linux", "x86_64", frozenset({"avx2", "avx_vnni"}), True))
    7
    """
    cpu = cpu or this_cpu()
    return 8 if {"avx512f", "avx512bw", "avx512_vnni"} <= cpu.flags else 7


def int8_kernels(cpu: CpuDescription | None = None) -> bool:
    """True when torch's x86 int8 kernels (fbgemm) run here with 8-bit activations (AVX-512 VNNI)."""
    cpu = cpu or this_cpu()
    return cpu.x86 and cpu.int8_engine and int8_activation_bits(cpu) == 8


def best_dtype(cpu: CpuDescription | None = None) -> Dtype:
    """The default engine setting: the int8 fast mode where its kernels run with 8-bit activations
    (x86 with AVX-512 VNNI: it keeps the chapters' claims, tests/model/engines/test_fast_mode.py),
    else bfloat16, which runs on every CPU torch runs on (natively where the CPU has bfloat16
    instructions, converted elsewhere) and keeps the 1.5B pack within a laptop's memory
    (docs/speed.md). int8-decode, the tests' setting, is faster on AVX2 but holds float32 weights
    for its pre-fill: `KITCHEN_DTYPE` chooses it.

    >>> laptop = CpuDescription("Linux", "x86_64", frozenset({"avx", "avx2", "fma"}), int8_engine=True)
    >>> best_dtype(laptop)
    'bfloat16'
    >>> best_dtype(CpuDescription("Linux", "x86_64", frozenset({"avx2", "avx512f", "avx512bw", "avx512_vnni"}),
    ...                           int8_engine=True))
    'int8'
    """
    return "int8" if int8_kernels(cpu) else "bfloat16"
