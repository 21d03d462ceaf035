"""The server process `kitchen.model.server.llama_python` starts: `python -m llama_cpp.server` with one fix.

For a request that asks for log-probabilities, llama-cpp-python (0.3.x) ranks the whole vocabulary
in Python for every token it writes: `sorted(zip(logprobs, range(n_vocab)), reverse=True)`, then
keeps the first `logprobs` entries. Qwen's vocabulary has 151,936 entries, so that sort, not the
model, sets the speed of a scored reply (upstream issue abetlen/llama-cpp-python#1983). What it
costs with and without this module's fix is measured by `scripts/benchmark.py --only server`,
written to docs/speed.md ("llama.cpp's server, with and without log-probabilities").

Run this way, the server's `llama_cpp.llama` module gets `top_sorted` in place of the built-in
`sorted` (its three calls are all that ranking): the `TOP` largest entries, in the same order as
the full sort (`heapq.nlargest` is documented equal to `sorted(..., reverse=True)[:n]`, and the
(log-probability, token id) pairs never tie). A request may ask for at most `TOP` candidates per
token (the OpenAI completions API allows 5; the chapters ask for at most 10); replies and their
scores are otherwise exactly the unpatched server's.

    python -m kitchen.model.server.logprob_fix --config_file server.json
"""

from __future__ import annotations

import builtins
import heapq
import runpy
from typing import Any, Callable, Iterable

TOP = 20  # candidates per token a request may ask for


def top_sorted(iterable: Iterable[Any], *, key: Callable | None = None, reverse: bool = False) -> list:
    """`sorted(iterable, reverse=True)[:TOP]` without sorting the rest; any other call is `sorted`'s.

    >>> top_sorted(zip([0.1, 0.7, 0.2], range(3)), reverse=True)
    [(0.7, 1), (0.2, 2), (0.1, 0)]
    >>> top_sorted([3, 1, 2])
    [1, 2, 3]
    """
    if reverse and key is None:
        return heapq.nlargest(TOP, iterable)
    return builtins.sorted(iterable, key=key, reverse=reverse)


def main() -> None:
    import llama_cpp.llama

    llama_cpp.llama.sorted = top_sorted  # a module global shadows the built-in for that module only
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
