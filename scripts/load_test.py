"""A classroom on one inference server: N learners run chapter 03's two-call task at once.

    python scripts/load_test.py                          # llama.cpp's server on the 1.5B pack, 30 learners
    python scripts/load_test.py --learners 0 --scores    # only the task alone, with probabilities
    python scripts/load_test.py --url http://HOST:PORT   # a server that is already running (vLLM, ...)
    python scripts/load_test.py --write docs/speed.md    # and record the result in that page

Each simulated learner is a thread with its own `ServerModel` that runs chapter 03's first
multi-step task (which rhyme mentions a sheep, then count its words: `search_rhymes`, then
`count_words`) through the harness, as the chapter does, asking for the text only (`--scores`
asks for each token's probabilities too, as the notebooks do). First the task runs one learner at
a time (`--solo` times; greedy decoding makes every run the same task, so a few give the
one-at-a-time rate); then all N learners start it together. Printed: p50/p95 seconds per task in the crowd and alone,
finished tasks per minute both ways and their ratio, and whether the server batches or queues:
a probe sends four different requests at once and compares their time with one alone (four
times as long: queued). A crowd can beat one-at-a-time even on a queueing server: its learners
send the same prompts, and a server that keeps the last prompt's cache skips their pre-fill.

Bounded: at most `--learners` threads, each request times out after `--timeout` seconds (a
`ServerError`, counted as a failed task), and learners still running after `--deadline` seconds
are counted as unfinished. Nothing leaves 127.0.0.1 unless `--url` says so.

With `--write docs/speed.md` what the run prints also replaces what stands between the page's
`<!-- load_test -->` and `<!-- /load_test -->` markers, under a line naming the machine, the date
and the command (`scripts/speed_doc.py`); the page's prose is left as it is.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import httpx
import speed_doc  # beside this script: the --write option's markers

from kitchen.harness.loop import run_harness
from kitchen.model.server.llama_python import llama_server
from kitchen.harness.protocols import NativeProtocol
from kitchen.model.server.client import ServerError, ServerModel
from kitchen.chapters.tasks import grade, load_tasks

BARE = NativeProtocol(result_note="")  # as chapter 03 runs its multi-step tasks


@dataclass
class Outcome:
    seconds: float
    completed: bool  # the task's grade: both tools ran and the answer holds the right count
    requests: int  # model calls the harness made
    error: str = ""


def one_task(url: str, tier: str, timeout: float, scores: bool = False) -> Outcome:
    task = load_tasks("multi")[0]
    t0 = time.perf_counter()
    try:
        model = ServerModel(url, tier, timeout=timeout, scores=scores)
        trace = run_harness(model, task.request, task.functions, protocol=BARE, max_steps=5, max_new_tokens=120)
    except ServerError as err:
        return Outcome(time.perf_counter() - t0, False, 0, str(err))
    return Outcome(time.perf_counter() - t0, grade(task, trace).completed, len(trace.steps))


def crowd(url: str, tier: str, learners: int, timeout: float, deadline: float,
          scores: bool = False) -> tuple[list[Outcome], float, int]:
    """All learners at once: their outcomes, the wall time until the last finished, and how many
    were still running at the deadline."""
    outcomes: list[Outcome] = []
    lock = threading.Lock()
    start = threading.Barrier(learners + 1)

    def learner() -> None:
        start.wait()
        outcome = one_task(url, tier, timeout, scores)
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=learner, daemon=True) for _ in range(learners)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join(max(0.0, deadline - (time.perf_counter() - t0)))
    return list(outcomes), time.perf_counter() - t0, sum(t.is_alive() for t in threads)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([1.0, 2.0, 3.0, 4.0], 95)
    (2.0, 4.0)
    """
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, -(-len(ranked) * q // 100) - 1))] if ranked else float("nan")


def table(crowd_out: list[Outcome], crowd_wall: float, unfinished: int, solo_out: list[Outcome],
          solo_wall: float) -> list[str]:
    """The result as Markdown rows, crowd and alone. A task that hit an error counts as failed,
    not finished; the rate counts finished tasks."""
    def row(name: str, out: list[Outcome], wall: float) -> str:
        ok = [o for o in out if not o.error]
        times = [o.seconds for o in ok]
        rate = 60 * len(ok) / wall if wall else float("nan")
        return (f"| {name} | {len(ok)} | {len(out) - len(ok)} | {sum(o.completed for o in ok)} | "
                f"{percentile(times, 50):.1f} | {percentile(times, 95):.1f} | {wall:.0f} | {rate:.2f} |")
    return ["| run | tasks finished | failed (error) | completed right | p50 s/task | p95 s/task | wall s | tasks/min |",
            "|---|---|---|---|---|---|---|---|",
            row(f"{len(crowd_out) + unfinished} learners at once", crowd_out, crowd_wall),
            row("one learner at a time", solo_out, solo_wall)]


def batching_probe(url: str, served: str, n: int = 4, tokens: int = 32) -> float:
    """Seconds for `n` different requests sent at once, against one alone (same length, distinct
    prompts so no prompt cache helps): about `n` when the server queues, near 1 when it batches."""
    def ask(i: int) -> None:
        body = {"model": served, "prompt": f"Request {i}: list the numbers from {i} upwards, one per line.\n",
                "max_tokens": tokens, "temperature": 0.0, "ignore_eos": True}
        httpx.post(f"{url}/v1/completions", json=body, timeout=600).raise_for_status()

    t0 = time.perf_counter()
    ask(0)
    alone = time.perf_counter() - t0
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(1, n + 1)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return (time.perf_counter() - t0) / alone


def verdict(crowd_out: list[Outcome], crowd_wall: float, solo_out: list[Outcome], solo_wall: float,
            together: float, n: int = 4) -> str:
    """Batched or queued (from the probe), and the crowd's rate against one-at-a-time's."""
    def rate(out: list[Outcome], wall: float) -> float:
        return sum(not o.error for o in out) / wall if wall else 0.0
    ratio = rate(crowd_out, crowd_wall) / rate(solo_out, solo_wall) if rate(solo_out, solo_wall) else float("nan")
    how = ("batched" if together < n / 2 else "queued") + (
        f": {n} different requests sent at once took {together:.1f}× the time of one alone")
    ok = [o.seconds for o in crowd_out if not o.error]
    p50_ratio = percentile(ok, 50) / percentile([o.seconds for o in solo_out if not o.error], 50)
    return (f"{how}. Finished tasks per minute, crowd against one at a time: {ratio:.2f}×; "
            f"a learner's p50 time per task in the crowd against alone: {p50_ratio:.1f}×.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running server (default: start llama.cpp's on the tier's pack)")
    parser.add_argument("--tier", default="1.5b", choices=["0.5b", "1.5b"],
                        help="the pack llama.cpp serves (the 1.5B is the tier that completes the task)")
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--solo", type=int, default=5, help="the task run alone, one after another, this many times")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds one request may take")
    parser.add_argument("--scores", action="store_true",
                        help="ask for each token's probabilities, as the notebooks do (slower on llama.cpp)")
    parser.add_argument("--deadline", type=float, default=3600.0, help="seconds the crowd may take in all")
    parser.add_argument("--write", metavar="FILE", type=Path,
                        help="also write the result between the load_test markers in FILE (docs/speed.md)")
    args = parser.parse_args()
    if args.write and (why := speed_doc.check_markers(args.write, [speed_doc.LOAD_TEST])):
        parser.error(f"--write: {why}")  # before the run, not after it
    with speed_doc.tee() as printed:
        run(args)
    if args.write:
        speed_doc.write_section(args.write, speed_doc.LOAD_TEST, printed.getvalue(), fenced=False)
        print(f"(written to {args.write}, between the {speed_doc.LOAD_TEST} markers)")


def run(args: argparse.Namespace) -> None:
    """The run itself: one learner at a time, then the crowd and the probe; the report printed."""
    with (nullcontext(args.url) if args.url else llama_server(args.tier)) as url:
        model = ServerModel(url, args.tier)
        print(f"server: {url} · model {model.served} · {args.learners} learners · scores "
              f"{'asked' if args.scores else 'not asked'} · task: chapter 03's "
              f"multi-step task 1 ({load_tasks('multi')[0].request!r})", flush=True)
        t0 = time.perf_counter()
        solo_out = [one_task(url, args.tier, args.timeout, args.scores) for _ in range(args.solo)]
        solo_wall = time.perf_counter() - t0
        print(f"alone: {args.solo} tasks in {solo_wall:.0f} s", flush=True)
        if not args.learners:
            print(f"alone, p50 {percentile([o.seconds for o in solo_out], 50):.1f} s per task; completed "
                  f"{sum(o.completed for o in solo_out)} of {len(solo_out)}")
            return
        crowd_out, crowd_wall, unfinished = crowd(url, args.tier, args.learners, args.timeout, args.deadline,
                                                  args.scores)
        together = batching_probe(url, model.served)
    print("\n".join(table(crowd_out, crowd_wall, unfinished, solo_out, solo_wall)))
    print(verdict(crowd_out, crowd_wall, solo_out, solo_wall, together))
    errors = {o.error for o in crowd_out + solo_out if o.error}
    if unfinished or errors:
        print(f"unfinished at the deadline: {unfinished}; errors: {sorted(errors)[:3]}")
    print(f"model calls per task: {sorted({o.requests for o in crowd_out + solo_out})}")


if __name__ == "__main__":
    main()
