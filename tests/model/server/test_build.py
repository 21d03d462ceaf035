"""Building llama.cpp's `llama-server`: the flags each CPU gets, where a build goes, the pinned sdist.

The build itself (minutes) runs in `make llama-server`, which `make test` runs before its server phase.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kitchen.model.server import build

ROOT = Path(__file__).resolve().parents[3]
AVX2 = {"sse4_2", "avx", "avx2", "bmi2", "fma", "f16c"}
SAPPHIRE = AVX2 | {"avx512f", "avx512_vnni", "avx512_bf16", "avx512vbmi", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16"}


def on(switches: list[str]) -> set[str]:
    return {s[len("-DGGML_"):-len("=ON")] for s in switches if s.endswith("=ON")}


def test_an_avx2_cpu_gets_avx2_and_nothing_it_lacks():
    switches = build.cmake_flags(AVX2, "x86_64", amx=False)
    assert switches[0] == "-DGGML_NATIVE=OFF"
    assert on(switches) == {"SSE42", "AVX", "AVX2", "BMI2", "FMA", "F16C"}
    assert build.label(switches) == "sse42 avx avx2 bmi2 fma f16c"


def test_avx512_vnni_and_bf16_are_used_where_the_cpu_has_them():
    assert {"AVX512", "AVX512_VNNI", "AVX512_BF16", "AVX512_VBMI", "AVX_VNNI"} <= on(
        build.cmake_flags(SAPPHIRE, "x86_64", amx=False))


def test_amx_only_when_the_os_grants_its_state():
    assert not any(name.startswith("AMX") for name in on(build.cmake_flags(SAPPHIRE, "x86_64", amx=False)))
    assert {"AMX_TILE", "AMX_INT8", "AMX_BF16"} <= on(build.cmake_flags(SAPPHIRE, "x86_64", amx=True))
    assert not any(name.startswith("AMX") for name in on(build.cmake_flags(AVX2, "x86_64", amx=True)))


def test_an_arm_machine_gets_the_native_build():
    assert build.cmake_flags(set(), "arm64", amx=False) == ["-DGGML_NATIVE=ON"]
    assert build.cmake_flags({"asimd"}, "aarch64", amx=False) == ["-DGGML_NATIVE=ON"]


def test_an_x86_machine_without_cpuinfo_gets_the_native_build():
    # an Intel Mac: no /proc/cpuinfo to name the sets from, and no AMX to fear
    assert build.cmake_flags(set(), "x86_64", amx=False) == ["-DGGML_NATIVE=ON"]
    assert build.label(["-DGGML_NATIVE=ON"]) == "native"


def test_this_machine_gets_what_its_cpuinfo_lists():
    flags = build.cpu_flags()  # kitchen.model.engines.cpu's, as the engine reads them
    if "avx2" not in flags:
        pytest.skip("not an x86 CPU with AVX2")
    assert "AVX2" in on(build.this_cpu()) and ("AVX512" in on(build.this_cpu())) == ("avx512f" in flags)


def test_each_set_of_switches_has_its_own_folder_in_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("KITCHEN_CACHE", str(tmp_path))
    a, b = build.cmake_flags(AVX2, "x86_64", False), build.cmake_flags(SAPPHIRE, "x86_64", False)
    assert build.binary(a).parent != build.binary(b).parent
    assert build.binary(a).is_relative_to(tmp_path / "llama-server") and build.binary(a).name == "llama-server"
    assert build.built(a) is None  # nothing built there


def test_llama_cpp_pythons_wheel_is_built_with_the_same_switches_and_kept_by_them(monkeypatch, tmp_path):
    monkeypatch.setenv("KITCHEN_CACHE", str(tmp_path))
    builds = []

    def pip_wheel(command, env, check):
        builds.append(env["CMAKE_ARGS"])
        out = Path(command[command.index("-w") + 1])
        (out / f"llama_cpp_python-{build.VERSION}-cp311-cp311-linux_x86_64.whl").write_bytes(b"a wheel")

    monkeypatch.setattr(build.subprocess, "run", pip_wheel)
    monkeypatch.setattr(build, "sdist", lambda where: where / build.SDIST)
    avx2, sapphire = build.cmake_flags(AVX2, "x86_64", False), build.cmake_flags(SAPPHIRE, "x86_64", False)
    first = build.wheel(avx2)
    assert builds == [" ".join(avx2)] and first.parent == build.folder(avx2) / "wheel" and first.is_file()
    assert build.wheel(avx2) == first and len(builds) == 1  # kept, not built again
    other = build.wheel(sapphire)  # another CPU's switches: a wheel of their own, not the one above
    assert builds[1] == " ".join(sapphire) and other.parent == build.folder(sapphire) / "wheel"


def test_the_pinned_version_is_the_server_extras():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(rf'"llama-cpp-python\[server\]=={re.escape(build.VERSION)}"', pyproject)
    assert re.search(r'"cmake==[0-9.]+"', pyproject) and re.search(r'"ninja==[0-9.]+"', pyproject)


def test_a_sdist_that_is_not_the_pinned_file_is_deleted_not_built(tmp_path):
    (tmp_path / build.SDIST).write_bytes(b"not the sdist")
    with pytest.raises(RuntimeError, match="not the pinned"):
        build.sdist(tmp_path)
    assert not (tmp_path / build.SDIST).exists()
