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

from kitchen.model.engines.cpu import family
from kitchen.settings import current

# (model name, source, dtype or server, instruction-set family): where a claim was seen to hold, in this
# project's runs. The family ("avx2", "avx512": `kitchen.model.engines.cpu.family`) is the CPU's that
# computed the run: kernels pick their code by family, and a greedy reply can part between two at a
# near tie. A replay computes nothing: its family is REPLAYED, whatever the CPU.
RunSetting = tuple[str, str, str, str]
FAMILIES = ("avx2", "avx512")  # the x86 families this project's machines have (an AVX-512 one forced to AVX2)
REPLAYED = "recorded"
CODER_05 = "Qwen2.5-Coder-0.5B-Instruct"
CODER_15 = "Qwen2.5-Coder-1.5B-Instruct"
# The same packs' GGUF files behind llama.cpp's two servers (the server source): llama-cpp-python's
# (`kitchen.model.server.llama_python`) and llama.cpp's own (`kitchen.model.server.llama_server`).
# A server reports no dtype: its setting names the server instead (`setting_of`), and its family is
# that of the build's switches (`kitchen.model.server.build`: this CPU's, or AVX2's only).
GGUF_05, GGUF_15 = "Qwen2.5-Coder-0.5B-Instruct-Q4_K_M", "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M"


def on(families: tuple[str, ...], *settings: tuple[str, str, str]) -> tuple[RunSetting, ...]:
    """Each (model, source, setting) measured on each of `families`.

    >>> on(("avx2",), (CODER_05, "pack", "float32"))
    (('Qwen2.5-Coder-0.5B-Instruct', 'pack', 'float32', 'avx2'),)
    """
    return tuple((*s, f) for s in settings for f in families)


LLAMA_PYTHON_05 = on(("avx2",), (GGUF_05, "server", "llama-cpp-python"))
LLAMA_PYTHON_15 = on(("avx2",), (GGUF_15, "server", "llama-cpp-python"))
LLAMA_SERVER_05 = on(FAMILIES, (GGUF_05, "server", "llama-server"))
LLAMA_SERVER_15 = on(FAMILIES, (GGUF_15, "server", "llama-server"))
# The offline packs in the two settings the claims were checked on: float32, and int8-decode (float32
# pre-fill, int8 decode steps: `make test`'s setting), on both families.
SMALL_PACK = on(FAMILIES, *((CODER_05, "pack", dtype) for dtype in ("float32", "int8-decode")))
BIG_PACK = on(FAMILIES, *((CODER_15, "pack", dtype) for dtype in ("float32", "int8-decode")))


def recorded(name: str) -> tuple[RunSetting, ...]:
    """A claim shown from a recording of `name` (made in float32 by scripts/record.py)."""
    return ((name, "replay", "float32", REPLAYED),)


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

    >>> _where(SMALL_PACK, (CODER_05, "replay", "float32", REPLAYED))
    'measured on: pack in float32, int8-decode (avx2, avx512); this run: replay, float32'
    >>> _where(LLAMA_SERVER_05[:1], (GGUF_05, "server", "llama-server", "avx512"))
    'measured on: server in llama-server (avx2); this run: server, llama-server, avx512'
    """
    sources: dict[str, dict[str, None]] = {}
    families: dict[str, dict[str, None]] = {}
    for _, source, dtype, family in measured_on:
        sources.setdefault(source, {})[dtype] = None
        families.setdefault(source, {})[family] = None
    measured = "; ".join(f"{source} in {', '.join(dtypes)}"
                         + (f" ({', '.join(families[source])})" if REPLAYED not in families[source] else "")
                         for source, dtypes in sources.items())
    name, source, dtype, family = setting
    model = "" if name in {m[0] for m in measured_on} else f", {name}"
    here = "" if family == REPLAYED else f", {family}"
    return f"measured on: {measured}; this run: {source}, {dtype}{here}{model}"


def setting_of(model) -> RunSetting:
    """The (model name, source, dtype, family) of a live or replayed model; behind a server, which
    server in place of the dtype it does not report (`kitchen.model.server.dialects.served_by`).

    A server reports no build either: one on this machine (a loopback address, as `make test` and
    `make classroom` start it) was built here, for the CPU as this process reads it (`make
    test-avx2` limits both alike); a server elsewhere is of an "unknown" family."""
    info = model.info
    if info.source == "replay":
        return (info.model_name, "replay", info.dtype, REPLAYED)
    if info.source == "server":
        local = any(host in info.origin for host in ("//127.", "//localhost", "//[::1]"))
        return (info.model_name, "server", info.engine, family() if local else "unknown")
    return (info.model_name, info.source, info.dtype, family())


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

