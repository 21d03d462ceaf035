"""What this checkout and its environment give the series: the variables it reads, where `data/`
is, and which optional installs are there. Environment variables are read here and nowhere else.

Owns: the variables' names, their defaults and one `current()` snapshot; `DATA`; the extras of
pyproject.toml and `need`, which imports a module one of them brings or raises `MissingExtra`
naming the extra and the command that installs it. Does not decide anything with them:
`kitchen.model.selection` picks a model, `kitchen.model.weights` and `kitchen.model.packs` use
the folders.

>>> current().model is None or isinstance(current().model, str)
True
>>> need("json", "server").__name__
'json'
>>> need("no_such_module_here", "server")
Traceback (most recent call last):
...
kitchen.settings.MissingExtra: this needs no_such_module_here, from the `server` extra (llama.cpp's server, built from source: a C++ compiler and a few minutes). Install it with `make venv-all` (every extra), or `.venv/bin/python -m pip install -c requirements.lock -e '.[server]'`.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"  # the repository's data: tasks, recordings, the tokenizer, experiment results

MODEL_VAR = "KITCHEN_MODEL"  # "0.5b", "pack", "1.5b:replay": a tier, a source or both
DTYPE_VAR = "KITCHEN_DTYPE"  # "bfloat16", "float32", "int8" or "int8-decode" for the whole series
RECORD_VAR = "KITCHEN_RECORD"  # a recording's name: live runs are recorded (scripts/record.py)
CACHE_VAR = "KITCHEN_CACHE"  # assembled packs and converted models
VERDICTS_VAR = "KITCHEN_VERDICTS"  # a file each verdict cell appends its verdict to (make test-notebooks)
CLAIMS_FROM_VAR = "KITCHEN_CLAIMS_FROM"  # the notebooks' verdicts file the claims suite reads (make test)
CHROMIUM_VAR = "KITCHEN_CHROMIUM"  # the Chromium the browser suite and the book drive (make CHROMIUM=...)
REQUIRE_BROWSER_VAR = "KITCHEN_REQUIRE_BROWSER"  # "1": a missing browser fails the browser suite
REQUIRE_1_5B_VAR = "KITCHEN_REQUIRE_1_5B"  # "1": a missing 1.5B pack fails the claims suite
# The libraries' own switches that limit their kernels to an instruction set (AVX2 on an AVX-512 CPU,
# as `make test-avx2` runs): the engine reads the CPU as they do (`kitchen.model.engines.cpu`).
ISA_LIMIT_VARS = ("FBGEMM_ENABLE_INSTRUCTIONS", "ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS")

EXTRAS = {
    "server": "llama.cpp's server, built from source: a C++ compiler and a few minutes",
    "demo": "Voilà, for `make demo`",
    "dev": "the test tools",
}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


def _path(name: str) -> Path | None:
    return Path(os.environ[name]) if os.environ.get(name) else None


@dataclass(frozen=True)
class Settings:
    """What the environment asks for, at one moment."""

    model: str | None  # KITCHEN_MODEL
    dtype: str | None  # KITCHEN_DTYPE
    record: str | None  # KITCHEN_RECORD
    cache: Path  # KITCHEN_CACHE, else ~/.cache/llm-kitchen
    hub_offline: bool  # HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE: the hub cache only, no request
    hub_cache: Path  # HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub
    verdicts: Path | None = None  # KITCHEN_VERDICTS
    claims_from: Path | None = None  # KITCHEN_CLAIMS_FROM
    chromium: Path = Path("/usr/bin/chromium")  # KITCHEN_CHROMIUM, else Debian's
    require_browser: bool = False  # KITCHEN_REQUIRE_BROWSER
    require_1_5b: bool = False  # KITCHEN_REQUIRE_1_5B
    isa_limit: str | None = None  # "avx2" when one of ISA_LIMIT_VARS limits the kernels to AVX2


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
        verdicts=_path(VERDICTS_VAR),
        claims_from=_path(CLAIMS_FROM_VAR),
        chromium=_path(CHROMIUM_VAR) or Path("/usr/bin/chromium"),
        require_browser=_flag(REQUIRE_BROWSER_VAR),
        require_1_5b=_flag(REQUIRE_1_5B_VAR),
        isa_limit="avx2" if any(env.get(v, "").lower() == "avx2" for v in ISA_LIMIT_VARS) else None,
    )


class MissingExtra(ImportError):
    """A module that an extra of pyproject.toml brings is not installed."""


def need(module: str, extra: str) -> ModuleType:
    """Import `module`, or raise `MissingExtra` naming the extra and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(
            f"this needs {module}, from the `{extra}` extra ({EXTRAS[extra]}). Install it with "
            f"`make venv-all` (every extra), or `.venv/bin/python -m pip install -c requirements.lock "
            f"-e '.[{extra}]'`.") from None
