"""The environment variables the series reads, read here and nowhere else.

Owns: their names, their defaults and one `current()` snapshot. Does not decide anything with
them: `kitchen.choice` picks a model, `kitchen.loading` and `kitchen.packs` use the folders.

>>> current().model is None or isinstance(current().model, str)
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MODEL_VAR = "KITCHEN_MODEL"  # "0.5b", "pack", "1.5b:replay": a tier, a source or both
DTYPE_VAR = "KITCHEN_DTYPE"  # "bfloat16", "float32", "int8" or "int8-decode" for the whole series
RECORD_VAR = "KITCHEN_RECORD"  # a recording's name: live runs are recorded (scripts/record.py)
CACHE_VAR = "KITCHEN_CACHE"  # assembled packs and converted models


def _flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class Settings:
    """What the environment asks for, at one moment."""

    model: str | None  # KITCHEN_MODEL
    dtype: str | None  # KITCHEN_DTYPE
    record: str | None  # KITCHEN_RECORD
    cache: Path  # KITCHEN_CACHE, else ~/.cache/llm-kitchen
    hub_offline: bool  # HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE: the hub cache only, no request
    hub_cache: Path  # HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub


def current() -> Settings:
    """Read the environment now (a test or a user may change it between calls)."""
    env = os.environ
    hf_home = env.get("HF_HOME") or Path(env.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "huggingface"
    return Settings(
        model=env.get(MODEL_VAR) or None,
        dtype=env.get(DTYPE_VAR) or None,
        record=env.get(RECORD_VAR) or None,
        cache=Path(env.get(CACHE_VAR, Path.home() / ".cache" / "llm-kitchen")),
        hub_offline=_flag("HF_HUB_OFFLINE") or _flag("TRANSFORMERS_OFFLINE"),
        hub_cache=Path(env["HF_HUB_CACHE"]) if env.get("HF_HUB_CACHE") else Path(hf_home) / "hub",
    )
