"""What this CPU can do fast, and the engine setting (dtype) chosen from it.

Owns the reading of CPU features (read on first use, never at import) and `best_dtype`. Does not
load a model: `kitchen.models` asks `best_dtype()` when `KITCHEN_DTYPE` and the caller are silent.
"""

from __future__ import annotations

import functools
import platform
import subprocess
from pathlib import Path

from .chat_model import Dtype


@functools.cache
def _linux_cpu_flags() -> str:
    """The CPU's feature flags as Linux lists them ("" elsewhere)."""
    try:
        return Path("/proc/cpuinfo").read_text() if platform.system() == "Linux" else ""
    except OSError:
        return ""


def cpu_supports_bf16() -> bool:
    """True when this CPU has native bfloat16 instructions (then bfloat16 is about 2x faster)."""
    if platform.system() == "Linux":
        flags = _linux_cpu_flags()
        return "avx512_bf16" in flags or "amx_bf16" in flags
    if platform.system() == "Darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "hw.optional.arm.FEAT_BF16"], capture_output=True,
                                 text=True, timeout=2)
            return out.stdout.strip() == "1"
        except (OSError, subprocess.SubprocessError):
            return False
    return False


def cpu_has_vnni() -> bool:
    """True when the CPU multiplies 8-bit numbers into 32-bit sums directly (AVX-512 VNNI, AVX-VNNI)."""
    flags = _linux_cpu_flags()
    return "avx512_vnni" in flags or "avx_vnni" in flags


def cpu_has_avx2() -> bool:
    """True on an x86 CPU with AVX2 (most laptops and servers since 2015), as Linux lists it."""
    return "avx2" in _linux_cpu_flags().split()


def int8_kernels() -> bool:
    """True when torch's x86 int8 kernels (fbgemm) run here with 8-bit activations (VNNI)."""
    import torch  # only asked when a live model loads: keep `import kitchen.cpu` light

    return "fbgemm" in torch.backends.quantized.supported_engines and cpu_has_vnni()


def best_dtype() -> Dtype:
    """The default engine setting: the int8 fast mode where its kernels run with 8-bit activations
    (it keeps the chapters' stories: tests/test_fast_mode.py), else bfloat16 on CPUs built for it,
    else int8-decode on AVX2 (float32 pre-fill, int8 decode steps: `kitchen.int8_decode`), else
    float32."""
    if int8_kernels():
        return "int8"
    if cpu_supports_bf16():
        return "bfloat16"
    return "int8-decode" if cpu_has_avx2() else "float32"
