"""What this CPU can do fast, and the engine setting (dtype) chosen from it.

Owns the reading of the CPU (`this_cpu`, read on first use, never at import) and `best_dtype`, which
decides from a `CpuDescription` alone, so a test can hand it any machine's. Does not load a model:
`kitchen.model.load` asks `best_dtype()` when `KITCHEN_DTYPE` and the caller are silent.

>>> best_dtype(CpuDescription("Darwin", "arm64", frozenset({"FEAT_BF16"}), int8_engine=False))
'bfloat16'
"""

from __future__ import annotations

import functools
import platform
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kitchen.model.interface import Dtype

X86 = ("x86_64", "amd64", "i686", "x86")
MAC_FEATURES = ("FEAT_BF16", "FEAT_I8MM", "FEAT_DotProd")  # sysctl hw.optional.arm.<name>, 1 when present


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


@functools.cache
def _linux_cpu_flags() -> str:
    """The CPU's feature flags as Linux lists them ("" elsewhere)."""
    try:
        return Path("/proc/cpuinfo").read_text() if platform.system() == "Linux" else ""
    except OSError:
        return ""


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


@functools.cache
def this_cpu() -> CpuDescription:
    """This machine's CPU (torch is imported to ask for its int8 kernels: only when a model loads)."""
    import torch

    system = platform.system()
    flags = frozenset(_linux_cpu_flags().split()) if system == "Linux" else (
        _mac_features() if system == "Darwin" else frozenset())
    return CpuDescription(system, platform.machine(), flags, "fbgemm" in torch.backends.quantized.supported_engines)


def cpu_has_vnni(cpu: CpuDescription | None = None) -> bool:
    """True when the CPU multiplies 8-bit numbers into 32-bit sums directly (AVX-512 VNNI, AVX-VNNI)."""
    return bool({"avx512_vnni", "avx_vnni"} & (cpu or this_cpu()).flags)


def cpu_has_avx2(cpu: CpuDescription | None = None) -> bool:
    """True on an x86 CPU with AVX2 (most laptops and servers since 2015), as Linux lists it."""
    return "avx2" in (cpu or this_cpu()).flags


def int8_kernels(cpu: CpuDescription | None = None) -> bool:
    """True when torch's x86 int8 kernels (fbgemm) run here with 8-bit activations (VNNI)."""
    cpu = cpu or this_cpu()
    return cpu.x86 and cpu.int8_engine and cpu_has_vnni(cpu)


def best_dtype(cpu: CpuDescription | None = None) -> Dtype:
    """The default engine setting: the int8 fast mode where its kernels run with 8-bit activations
    (x86 with VNNI: it keeps the chapters' claims, tests/model/engines/test_fast_mode.py), else bfloat16, which
    runs on every CPU torch runs on (natively where the CPU has bfloat16 instructions, converted
    elsewhere) and keeps the 1.5B pack within a laptop's memory (docs/speed.md). int8-decode, the
    tests' setting, is faster on AVX2 but holds float32 weights for its pre-fill: `KITCHEN_DTYPE`
    chooses it.

    >>> laptop = CpuDescription("Linux", "x86_64", frozenset({"avx", "avx2", "fma"}), int8_engine=True)
    >>> best_dtype(laptop)
    'bfloat16'
    >>> best_dtype(CpuDescription("Linux", "x86_64", frozenset({"avx2", "avx512_vnni"}), int8_engine=True))
    'int8'
    """
    return "int8" if int8_kernels(cpu) else "bfloat16"
