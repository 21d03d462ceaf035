"""Chapter 04's claims: a tags-only harness misses the small pack's calls; prompt formats on both packs."""

from __future__ import annotations

from kitchen.harness.loop import run_harness
from kitchen.chapters.lab import exact_answer, answer_line
from kitchen.harness.protocols import PROTOCOLS, NativeProtocol
from kitchen.tools import TOY_TOOLS, calculator
from kitchen.claims.core import BIG_PACK, SMALL_PACK, claim

SMALL_HERE = SMALL_PACK
BIG_HERE = BIG_PACK
QUESTION = "What is 1234 × 5678?"
PROMPT_FORMATS = ("fenced_json", "python", "call_tag")


def tags_only_and_robust(model) -> dict:
    """The same question, once through a harness that only knows Qwen's tags, once the robust one."""
    return {"tags_only": run_harness(model, QUESTION, [calculator], protocol=NativeProtocol(formats=("qwen",))),
            "robust": run_harness(model, QUESTION, [calculator])}


def _under(model, name: str):
    """The question under one prompt-based format, all five tools offered."""
    return run_harness(model, QUESTION, TOY_TOOLS, protocol=PROTOCOLS[name], max_steps=3, max_new_tokens=160)


def prompt_formats(model) -> dict:
    """The question under each prompt-based format."""
    return {name: _under(model, name) for name in PROMPT_FORMATS}


def fenced_format(model):
    """The question under the fenced-JSON format alone (chapter 04 runs it live)."""
    return _under(model, "fenced_json")


def _worked(trace) -> bool:
    return any(r.ok and r.name == "calculator" for r in trace.results) and \
        "✓ right" in answer_line(trace.answer or "", exact_answer(QUESTION))


@claim("04.tags_only_misses", "a harness that looks only for the <tool_call> tags misses the 0.5B pack's call "
       "and shows it as the answer; the robust parser finds and runs it", "0.5b", SMALL_HERE, tags_only_and_robust)
def _tags_only(runs) -> tuple[bool, str]:
    tags, robust = runs["tags_only"], runs["robust"]
    missed = not tags.results and '"name"' in (tags.answer or "")
    return missed and _worked(robust), (f"tags only: {len(tags.results)} calls ran, answer {tags.answer!r}; "
                                        f"robust: {[r.name for r in robust.results]}")


@claim("04.small_skips_prompt_formats", "under the three prompt formats the 0.5B pack writes no call for "
       "1234 × 5678", "0.5b", SMALL_HERE, prompt_formats)
def _small(runs) -> tuple[bool, str]:
    calls = {name: [c.name for c in t.steps[0].parsed.calls] for name, t in runs.items()}
    return not any(calls.values()), f"calls found per format: {calls}"


@claim("04.prompt_format_works", "on the 1.5B pack the fenced-JSON prompt format gets a calculator call run and "
       "the right answer", "1.5b", BIG_HERE, fenced_format)
def _big(trace) -> tuple[bool, str]:
    return _worked(trace), (f"tools that ran: {[r.name for r in trace.results]}; "
                            f"answer {(trace.answer or '')[:70]!r}")
