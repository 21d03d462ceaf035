"""Offline packs, exercised on a small fake pack installed into a temporary folder on sys.path.

The fake pack has the same shape as the real one (wheels whose only payload is data/partNN.bin,
found through package metadata), so every error path can be reached without touching the real one.
"""

import base64
import hashlib

import pytest

from kitchen.model import packs

PARTS = [b"GGUF" + bytes(range(200)) * 5, b"middle part " * 40, b"the end" * 30]


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@pytest.fixture
def fake_pack(tmp_path, monkeypatch):
    site = tmp_path / "site"
    for n, data in enumerate(PARTS, 1):
        pkg = site / f"fakepack_part{n}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{n:02d}.bin").write_bytes(data)
        info = site / f"fakepack_part{n}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakepack-part{n}\nVersion: 1.0\n"
                                       "Author-email: someone <someone@example.com>\n")
        (info / "RECORD").write_text(
            f"fakepack_part{n}/data/part{n:02d}.bin,{_record_hash(data)},{len(data)}\n"
            f"fakepack_part{n}-1.0.dist-info/RECORD,,\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("KITCHEN_CACHE", str(tmp_path / "cache"))
    whole = b"".join(PARTS)
    spec = packs.PackSpec(tier="test", model_name="Fake-Model", quantization="Q0", dist_prefix="fakepack-part",
                          version="1.0", n_parts=len(PARTS), size=len(whole),
                          sha256=hashlib.sha256(whole).hexdigest(), requirements_file="requirements-fake.txt")
    return spec, site


def test_assembles_and_verifies(fake_pack):
    spec, _ = fake_pack
    path = packs.assemble(spec, progress=False)
    assert path.read_bytes() == b"".join(PARTS)
    assert path.parent.parent.parent == packs.cache_dir()
    assert spec.publisher == "someone <someone@example.com>"


def test_second_call_reuses_the_verified_file(fake_pack):
    spec, _ = fake_pack
    first = packs.assemble(spec, progress=False)
    mtime = first.stat().st_mtime_ns
    assert packs.assemble(spec, progress=False).stat().st_mtime_ns == mtime


def test_missing_part_file_is_named(fake_pack):
    spec, site = fake_pack
    (site / "fakepack_part2" / "data" / "part02.bin").unlink()
    with pytest.raises(packs.PackError, match=r"part 02 of 3 is missing.*part02\.bin"):
        packs.assemble(spec, progress=False)


def test_missing_wheel_is_named_with_the_install_line(fake_pack):
    spec, site = fake_pack
    import shutil
    shutil.rmtree(site / "fakepack_part3-1.0.dist-info")
    with pytest.raises(packs.PackError, match=r"part 03 of 3 is missing \(package fakepack-part3.*requirements-fake\.txt"):
        packs.assemble(spec, progress=False)


def test_damaged_part_is_named(fake_pack):
    spec, site = fake_pack
    part = site / "fakepack_part3" / "data" / "part03.bin"
    data = bytearray(part.read_bytes())
    data[5] ^= 0xFF
    part.write_bytes(bytes(data))
    with pytest.raises(packs.PackError, match=r"part 03 .*damaged"):
        packs.assemble(spec, progress=False)
    assert not packs.assembled_path(spec).exists()


def test_part_damaged_after_assembly_is_caught_on_next_use(fake_pack):
    spec, site = fake_pack
    packs.assemble(spec, progress=False)
    part = site / "fakepack_part1" / "data" / "part01.bin"
    part.write_bytes(part.read_bytes()[:-1] + b"X")
    with pytest.raises(packs.PackError, match=r"part 01 .*damaged"):
        packs.assemble(spec, progress=False)


def test_wrong_pinned_hash_refuses_the_file(fake_pack):
    spec, _ = fake_pack
    import dataclasses
    wrong = dataclasses.replace(spec, sha256="0" * 64)
    with pytest.raises(packs.PackError, match=r"Fake-Model-Q0\.gguf.*Refusing to load it"):
        packs.assemble(wrong, progress=False)
    assert not packs.assembled_path(wrong).exists()


def test_not_installed(fake_pack):
    spec, _ = fake_pack
    import dataclasses
    assert packs.is_installed(spec)
    assert not packs.is_installed(dataclasses.replace(spec, dist_prefix="no-such-pack-part"))


def test_real_pack_specs_match_the_pinned_facts():
    assert packs.PACKS["0.5b"].sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert packs.PACKS["0.5b"].size == 491_400_064 and packs.PACKS["0.5b"].n_parts == 6
    assert packs.PACKS["1.5b"].sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert packs.PACKS["1.5b"].size == 1_117_320_768 and packs.PACKS["1.5b"].n_parts == 22
