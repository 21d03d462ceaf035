"""A Hugging Face hub cache laid out by hand, as `huggingface_hub` lays it out, for tests with no network.

    models--Qwen--Qwen2.5-0.5B-Instruct/
        refs/main                    the commit the snapshot belongs to
        snapshots/<commit>/          config.json, model.safetensors, tokenizer files

The weights put there are never the canonical model's: the tiny random model for the logic, or
the 0.5B pack's dense weights where a real load is wanted. Whatever loads from it is announced
with the hub's name (that is what the loader reads), so nothing made from it is ever shown or
benchmarked as the canonical model.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

FAKE_COMMIT = "0123456789abcdef0123456789abcdef01234567"


def lay_out(hub_cache: Path, hub_id: str, fill: Callable[[Path], None], commit: str = FAKE_COMMIT) -> Path:
    """Create the cache entry for `hub_id`; `fill(folder)` writes the snapshot's files. Returns the folder."""
    repo = hub_cache / f"models--{hub_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    fill(snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return snapshot


def copy_folder(source: Path) -> Callable[[Path], None]:
    """A `fill` that copies a saved Hugging Face folder (such as the pack's dense cache)."""
    def fill(snapshot: Path) -> None:
        for f in source.iterdir():
            if f.is_file() and f.suffix in (".json", ".safetensors", ".txt", ".jinja") and not f.name.startswith("kitchen-"):
                shutil.copy2(f, snapshot / f.name)
    return fill
