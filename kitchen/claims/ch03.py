"""Chapter 03's claims: the 1.5B pack chains two tools and recovers from an error; the 0.5B does neither."""

from __future__ import annotations

from kitchen.harness.loop import run_harness
from kitchen.harness.protocols import NativeProtocol
from kitchen.chapters.tasks import grade, load_tasks
from kitchen.tools import calculator, count_words, search_rhymes
from kitchen.claims.core import (BIG_PACK, GGUF_15, LLAMA_PYTHON_05, LLAMA_PYTHON_15, LLAMA_SERVER_05,
                                 LLAMA_SERVER_15, SMALL_PACK, claim, on)

SMALL_HERE = SMALL_PACK
BIG_HERE = BIG_PACK
# Also seen on the same GGUF files behind llama.cpp's two servers (`make test`'s server phase runs
# llama-server). The 1.5B's one call for two products holds on llama-server (both builds, 2026-12-07),
# not on llama-cpp-python's server, which wrote both calls in its first reply.
SMALL_TEXT = SMALL_HERE + LLAMA_PYTHON_05 + LLAMA_SERVER_05
# llama-server built for AVX-512 (VNNI, BF16) chains the same two tools, then answers '{}' (2026-12-07, AMD
# EPYC): the chain's right answer was measured on its AVX2 build only
BIG_CHAIN = BIG_HERE + LLAMA_PYTHON_15 + on(("avx2",), (GGUF_15, "server", "llama-server"))
# llama-server's 1.5B writes its first call right in chapter 03's recovery run: measured on the other server only
BIG_RECOVERY = BIG_HERE + LLAMA_PYTHON_15
STAR = "How many words are in the nursery rhyme about the little star?"
# Results handed back bare: no sentence after them asking for an answer (chapter 03 shows why).
BARE = NativeProtocol(result_note="")


def chain_run(model):
    """Which rhyme mentions a sheep, then count its words: results handed back bare."""
    task = load_tasks("multi")[0]
    return task, run_harness(model, task.request, task.functions, protocol=BARE, max_steps=5,
                             max_new_tokens=120)


def recovery_run(model):
    """The little-star question with the rhyme search and the word counter, the default harness."""
    return run_harness(model, STAR, [search_rhymes, count_words], max_steps=5, max_new_tokens=120)


def small_tasks(model) -> list[bool]:
    """Every multi-step task on the small pack, results bare, as the chapter runs them: completed?"""
    return [grade(task, run_harness(model, task.request, task.functions, protocol=BARE, max_steps=5,
                                    max_new_tokens=120)).completed
            for task in load_tasks("multi")]


@claim("03.chain", "the 1.5B pack chains search_rhymes and count_words to the right word count", "1.5b",
       BIG_CHAIN, chain_run)
def _chain(evidence) -> tuple[bool, str]:
    task, trace = evidence
    g = grade(task, trace)
    return g.completed, (f"tools that ran: {g.tools_used}; answer {trace.answer!r}; "
                         f"right answer holds {task.expected_values()}")


@claim("03.recovers_from_an_error", "the 1.5B pack's first call fails, and its next call, written after "
       "reading the error, works", "1.5b", BIG_RECOVERY, recovery_run)
def _recovers(trace) -> tuple[bool, str]:
    results = trace.results
    if len(results) < 2:
        return False, f"{len(results)} call(s) ran"
    first, second = results[0], results[1]
    return (not first.ok and second.ok,
            f"first: {first.name} → {first.error_kind or 'ok'}; next: {second.name} → {second.error_kind or 'ok'}")


@claim("03.small_chains_none", "the 0.5B pack completes none of the three multi-step tasks", "0.5b",
       SMALL_HERE, small_tasks)
def _small(completed) -> tuple[bool, str]:
    return not any(completed), f"completed: {completed}"


TWO_PRODUCTS = "What is 12 × 34, and what is 56 × 78?"


def two_products_run(model):
    """Two independent products asked at once, with several calls per reply allowed."""
    return run_harness(model, TWO_PRODUCTS, [calculator], parallel_calls=True, max_steps=3, max_new_tokens=200)


def _one_call(trace) -> tuple[bool, str]:
    first = trace.steps[0]
    return (len(first.parsed.calls) == 1,
            f"calls in the first reply: {[(c.name, c.arguments) for c in first.parsed.calls]}; answer {trace.answer!r}")


claim("03.one_call_small", "asked for two products with several calls per reply allowed, the 0.5B pack's "
      "first reply holds one call", "0.5b", SMALL_TEXT, two_products_run)(_one_call)
claim("03.one_call_big", "asked for two products with several calls per reply allowed, the 1.5B pack's "
      "first reply holds one call", "1.5b", BIG_HERE + LLAMA_SERVER_15, two_products_run)(_one_call)
