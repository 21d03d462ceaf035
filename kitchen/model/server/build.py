"""llama.cpp's own `llama-server`, built from the source inside the pinned llama-cpp-python sdist.

    make llama-server                                # the same as:
    python -m kitchen.model.server.build             # build once (minutes), print the flags and the path
    python -m kitchen.model.server.build --flags     # only print the flags this CPU gets
    python -m kitchen.model.server.build --wheel       # llama-cpp-python's wheel, the same source and flags

llama-cpp-python's sdist (the version the `server` extra pins) carries llama.cpp's whole source,
its server included (`vendor/llama.cpp/tools/server/`). This module fetches that sdist from the
package index (checked against its SHA-256), and builds the `llama-server` target with cmake and
ninja (both pinned in the `server` extra) into the cache folder, next to the packs:
`~/.cache/llm-kitchen/llama-server/<version>-<flags>/llama-server`, with `build.json` saying how.

The flags come from this CPU, not from `-march=native`: a native build also uses AMX wherever the
CPU lists it, and AMX code dies with "Illegal instruction" in a VM whose OS does not grant AMX
state. So on Linux each x86 instruction set is switched on by name when /proc/cpuinfo lists it
(AVX2, FMA, F16C, AVX-512, VNNI, BF16, ...), and AMX only when the kernel grants this process its
tile state (`arch_prctl`); an ARM machine, and an x86 one without /proc/cpuinfo (an Intel Mac),
gets llama.cpp's native build. No web page is built or downloaded
(`--no-ui`): the classroom talks to the server's API only.

llama-cpp-python, the other server and the benchmark's llama.cpp, is built from the same sdist with
the same switches (`wheel()`, which the `server` install uses), and its wheel is kept in the same
folder: pip's own wheel cache would hand back a wheel built earlier with other switches, since it
files wheels by the sdist's name alone.

>>> cmake_flags({"avx", "avx2", "fma", "f16c"}, "x86_64", amx=False)[:4]
['-DGGML_NATIVE=OFF', '-DGGML_SSE42=OFF', '-DGGML_AVX=ON', '-DGGML_AVX2=ON']
>>> label(cmake_flags({"avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni"}, "x86_64", amx=False))
'avx avx2 fma f16c avx512 avx512_vnni'
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from kitchen.model.engines.cpu import cpu_flags
from kitchen.settings import current

VERSION = "0.3.36"  # llama-cpp-python, as pyproject.toml's `server` extra pins it
SDIST = f"llama_cpp_python-{VERSION}.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"  # the index's file
# ggml's switch -> the /proc/cpuinfo flag that allows it (AMX has a second condition: `amx_granted`)
X86 = {"SSE42": "sse4_2", "AVX": "avx", "AVX2": "avx2", "BMI2": "bmi2", "FMA": "fma", "F16C": "f16c",
       "AVX_VNNI": "avx_vnni", "AVX512": "avx512f", "AVX512_VBMI": "avx512vbmi", "AVX512_VNNI": "avx512_vnni",
       "AVX512_BF16": "avx512_bf16", "AMX_TILE": "amx_tile", "AMX_INT8": "amx_int8", "AMX_BF16": "amx_bf16"}
# Only the server: no tests, examples, web page, HTTPS or downloads; one static binary.
COMMON = ["-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_BUILD_TESTS=OFF",
          "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_SERVER=ON",
          "-DLLAMA_BUILD_APP=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
          "-DLLAMA_OPENSSL=OFF", "-DGGML_BACKEND_DL=OFF"]


def amx_granted() -> bool:
    """True when Linux grants this process AMX's tile state (what AMX code needs to run at all)."""
    if platform.system() != "Linux" or platform.machine() != "x86_64" or current().isa_limit:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        # arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): 0 when granted
        return libc.syscall(158, 0x1023, 18) == 0
    except (OSError, AttributeError):
        return False


def cmake_flags(flags: set[str], machine: str, amx: bool) -> list[str]:
    """ggml's instruction-set switches for a CPU with `flags`, on `machine` (`platform.machine()`)."""
    if machine in ("arm64", "aarch64"):
        return ["-DGGML_NATIVE=ON"]  # no AMX there; llama.cpp's native build picks NEON, dotprod, ...
    if machine not in ("x86_64", "AMD64", "amd64"):
        return ["-DGGML_NATIVE=OFF"]
    if not flags:
        # no /proc/cpuinfo (an Intel Mac, Windows): the compiler asks the CPU itself. The AMX trap
        # is a Linux VM's, and Linux always lists its flags.
        return ["-DGGML_NATIVE=ON"]
    switches = ["-DGGML_NATIVE=OFF"]
    for name, flag in X86.items():
        on = flag in flags and (amx or not name.startswith("AMX"))
        switches.append(f"-DGGML_{name}={'ON' if on else 'OFF'}")
    return switches


def label(switches: list[str]) -> str:
    """The switches that are on, short: 'avx avx2 fma f16c' (what a benchmark row names)."""
    on = [s[len("-DGGML_"):-len("=ON")].lower() for s in switches if s.endswith("=ON")]
    return " ".join(on) or "generic"


def this_cpu() -> list[str]:
    """The switches for the machine this runs on (AVX2's only, where the process is limited to it)."""
    return cmake_flags(set(cpu_flags()), platform.machine(), amx_granted())


def folder(switches: list[str]) -> Path:
    """Where the build for these switches lives (one folder per version and set of switches)."""
    key = hashlib.sha256(" ".join(COMMON + switches).encode()).hexdigest()[:10]
    return current().cache / "llama-server" / f"{VERSION}-{key}"


def binary(switches: list[str] | None = None) -> Path:
    """The `llama-server` built for these switches (this CPU's by default); it may not exist yet."""
    return folder(this_cpu() if switches is None else switches) / "llama-server"


def built(switches: list[str] | None = None) -> dict | None:
    """The build's record (`build.json`: version, switches, seconds) if it is there, else None."""
    record = binary(switches).with_name("build.json")
    return json.loads(record.read_text()) if record.is_file() and binary(switches).is_file() else None


def _tool(name: str) -> str:
    """cmake or ninja: the venv's (the pinned ones) first, else the PATH's."""
    here = Path(sys.executable).parent / name
    found = str(here) if here.is_file() else shutil.which(name)
    if not found:
        raise RuntimeError(f"{name} not found: install the server extra (make venv-all), which pins it")
    return found


def sdist(where: Path) -> Path:
    """The pinned sdist, fetched from the package index into `where` once, its SHA-256 checked."""
    path = where / SDIST
    if not path.is_file():
        subprocess.run([sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q",
                        "--no-deps", "--no-binary", ":all:", f"llama-cpp-python=={VERSION}", "-d", str(where)],
                       check=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        path.unlink()
        raise RuntimeError(f"{SDIST} has SHA-256 {digest}, not the pinned {SDIST_SHA256}: deleted, not built")
    return path


def require() -> Path:
    """The `llama-server` built for this CPU; RuntimeError saying how to build it if it is not
    (never a silent download and build in a cell or a test)."""
    if not built():
        raise RuntimeError(f"llama.cpp's llama-server is not built for this CPU ({label(this_cpu())}): run "
                           "`make llama-server` once (it fetches the pinned sdist and builds it, about 10 minutes "
                           "on 2 cores)")
    return binary()


def build(switches: list[str] | None = None, jobs: int | None = None) -> Path:
    """Build `llama-server` for `switches` (this CPU's by default) unless it is built; its path."""
    switches = this_cpu() if switches is None else switches
    target = binary(switches)
    if built(switches):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kitchen-llama-build-") as tmp:
        with tarfile.open(sdist(target.parent.parent)) as archive:
            archive.extractall(tmp, filter="data")
        source = Path(tmp) / SDIST.removesuffix(".tar.gz") / "vendor" / "llama.cpp"
        out = Path(tmp) / "build"
        started = time.monotonic()
        subprocess.run([_tool("cmake"), "-S", str(source), "-B", str(out), "-G", "Ninja",
                        f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}", *COMMON, *switches], check=True)
        subprocess.run([_tool("cmake"), "--build", str(out), "--target", "llama-server",
                        "-j", str(jobs or os.cpu_count() or 1)], check=True)
        shutil.copy2(out / "bin" / "llama-server", target)
    record = {"llama_cpp_python": VERSION, "switches": switches, "label": label(switches),
              "common": COMMON, "seconds": round(time.monotonic() - started), "machine": platform.machine()}
    target.with_name("build.json").write_text(json.dumps(record, indent=1) + "\n")
    return target


def wheel(switches: list[str] | None = None) -> Path:
    """llama-cpp-python's wheel, built from the pinned sdist with `switches` (this CPU's by default)
    unless it is built; its path. Kept next to the `llama-server` built with the same switches."""
    switches = this_cpu() if switches is None else switches
    where = folder(switches) / "wheel"
    found = sorted(where.glob(f"llama_cpp_python-{VERSION}-*.whl"))
    if found:
        return found[0]
    where.mkdir(parents=True, exist_ok=True)
    print(f"building llama-cpp-python {VERSION} for {label(switches)} (minutes, once)", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="kitchen-llama-wheel-") as tmp:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--disable-pip-version-check", "-q", "--no-deps",
                        "--no-cache-dir", "-w", tmp, str(sdist(where.parent.parent))],
                       env={**os.environ, "CMAKE_ARGS": " ".join(switches)}, check=True)
        made = next(Path(tmp).glob("*.whl"))
        shutil.move(made, where / made.name)
    return where / made.name


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", action="store_true", help="only print the switches this CPU gets")
    parser.add_argument("--wheel", action="store_true",
                        help="only build llama-cpp-python's wheel with them (unless built) and print its path "
                             "(the server install uses it)")
    args = parser.parse_args(argv)
    switches = this_cpu()
    if args.wheel:
        print(wheel(switches))
        return
    print(f"llama-server build for this CPU: {label(switches)} (AMX granted: {amx_granted()})")
    print("  " + " ".join(switches))
    if args.flags:
        return
    path = build(switches)
    record = built(switches)
    print(f"llama-server: {path} (llama.cpp from llama-cpp-python {VERSION}, built in {record['seconds']} s)")


if __name__ == "__main__":
    main()
