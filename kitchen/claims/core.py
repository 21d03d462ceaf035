"""The chapters' claims about what a live model does, each written once, with its verdict.

A chapter says "the 0.5B pack gets 1234 × 5678 wrong" because a run shows it. Each such claim is a
`Claim` here: the chapter, the sentence, the tier it is about, the settings it was measured on,
how to make the run (`run`) and how to read it (`check`). The chapter's verdict cell calls
`verdict(claim_id, evidence, model)` on the run it just made and prints whether the claim holds on
*that* run; `tests/claims` makes the same run and asserts the claim where it was measured.

Elsewhere (another CPU's engine setting, the canonical hub model, a replay) a claim is only
reported: it may hold or not, and the verdict says which and why.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Callable

from kitchen.settings import current

# (model name, source, dtype or server): where a claim was seen to hold, in this project's runs.
RunSetting = tuple[str, str, str]
CODER_05 = "Qwen2.5-Coder-0.5B-Instruct"
CODER_15 = "Qwen2.5-Coder-1.5B-Instruct"
# The same packs' GGUF files behind llama.cpp's two servers (the server source): llama-cpp-python's
# (`kitchen.model.server.llama_python`) and llama.cpp's own (`kitchen.model.server.llama_server`).
# A server reports no dtype: its setting names the server instead (`setting_of`).
GGUF_05, GGUF_15 = "Qwen2.5-Coder-0.5B-Instruct-Q4_K_M", "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M"
LLAMA_PYTHON_05, LLAMA_PYTHON_15 = (GGUF_05, "server", "llama-cpp-python"), (GGUF_15, "server", "llama-cpp-python")
LLAMA_SERVER_05, LLAMA_SERVER_15 = (GGUF_05, "server", "llama-server"), (GGUF_15, "server", "llama-server")
# The offline packs in the two settings the claims were checked on: float32, and int8-decode (float32
# pre-fill, int8 decode steps: `make test`'s setting).
SMALL_PACK: tuple = tuple((CODER_05, "pack", dtype) for dtype in ("float32", "int8-decode"))
BIG_PACK: tuple = tuple((CODER_15, "pack", dtype) for dtype in ("float32", "int8-decode"))


@dataclass(frozen=True)
class Claim:
    """One sentence a chapter says about a live model, and how to check it on a run."""

    id: str  # "03.chain"
    chapter: str  # "03"
    text: str  # the claim, as the chapter makes it
    tier: str  # the tier the claim is about
    measured_on: tuple[RunSetting, ...]
    run: Callable[[Any], Any]  # model -> evidence (a Trace, a Generation, a dict)
    check: Callable[[Any], tuple[bool, str]]  # evidence -> (holds, why)
    source: str | None = None  # "replay" for a claim the chapter shows from a recording


@dataclass(frozen=True)
class ClaimVerdict:
    claim: Claim
    holds: bool
    why: str
    setting: RunSetting
    measured_here: bool  # the run used a setting the claim was measured on

    def line(self) -> str:
        """One line for a notebook: the claim, yes or no on this run, and why."""
        mark = "yes" if self.holds else "NO"
        where = "" if self.measured_here else f" ({_where(self.claim.measured_on, self.setting)})"
        return f"[{self.claim.id}] {self.claim.text}: {mark}. {self.why}{where}"

    def __str__(self) -> str:
        return self.line()


def _where(measured_on: tuple[RunSetting, ...], setting: RunSetting) -> str:
    """Where a claim was measured and where this run was made, in a few words.

    >>> _where(SMALL_PACK, (CODER_05, "replay", "float32"))
    'measured on: pack in float32, int8-decode; this run: replay, float32'
    """
    sources: dict[str, list[str]] = {}
    for _, source, dtype in measured_on:
        sources.setdefault(source, []).append(dtype)
    measured = "; ".join(f"{source} in {', '.join(dtypes)}" for source, dtypes in sources.items())
    name, source, dtype = setting
    model = "" if name in {n for n, _, _ in measured_on} else f", {name}"
    return f"measured on: {measured}; this run: {source}, {dtype}{model}"


def setting_of(model) -> RunSetting:
    """The (model name, source, dtype) of a live or replayed model; behind a server, which server
    in place of the dtype it does not report (`kitchen.model.server.dialects.served_by`)."""
    info = model.info
    return (info.model_name, info.source, info.engine if info.source == "server" else info.dtype)


CLAIMS: dict[str, Claim] = {}


def claim(id: str, text: str, tier: str, measured_on: tuple[RunSetting, ...], run: Callable[[Any], Any],
          source: str | None = None) -> Callable[[Callable[[Any], tuple[bool, str]]], Callable]:
    """Register a claim; the decorated function is its check."""
    def register(check: Callable[[Any], tuple[bool, str]]) -> Callable:
        CLAIMS[id] = Claim(id, id.split(".")[0], text, tier, measured_on, run, check, source)
        return check
    return register


def verdict(claim_id: str, evidence: Any, model) -> ClaimVerdict:
    """Check a claim on a run that `model` made. Never raises on odd evidence: that is a no."""
    c = CLAIMS[claim_id]
    try:
        holds, why = c.check(evidence)
    except Exception as err:  # evidence of an unexpected shape is a claim that does not hold
        holds, why = False, f"the run could not be read: {type(err).__name__}: {err}"
    setting = setting_of(model)
    return ClaimVerdict(c, bool(holds), why, setting, setting in c.measured_on)


def show(claim_id: str, evidence: Any, model) -> ClaimVerdict:
    """Print the verdict line (a notebook's verdict cell) and return it."""
    v = verdict(claim_id, evidence, model)
    print(v.line())
    # KITCHEN_VERDICTS: each verdict a notebook shows is also added to that file, a JSON object per
    # line (the claims and server phases of `make test` read what the chapters showed).
    if (log_path := current().verdicts) is not None:
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"claim": claim_id, "holds": v.holds, "measured_here": v.measured_here,
                                  "setting": list(v.setting), "line": v.line()}) + "\n")
    return v


def shown_verdicts(path) -> list[dict]:
    """The verdicts `show` wrote to a KITCHEN_VERDICTS file, in order ([] when there is no file).

    Each is a dict: claim, holds, measured_here, setting, line."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as log:
        return [json.loads(line) for line in log if line.strip()]


def by_chapter(chapter: str) -> list[Claim]:
    return [c for c in CLAIMS.values() if c.chapter == chapter]

