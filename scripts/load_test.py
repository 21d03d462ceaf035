"""A real room on one inference server: N learners, each running a different chapter-03 task, at once.

    python scripts/load_test.py                          # both servers, the 1.5B pack, 30 learners
    python scripts/load_test.py --server llama-server    # one of them (or llama-cpp-python)
    python scripts/load_test.py --url http://HOST:PORT   # a server that is already running (vLLM, ...)
    python scripts/load_test.py --write docs/speed.md    # and record the result in that page
    python scripts/load_test.py --server llama-server --slots 4   # fewer slots than learners

The room's tasks (`room_tasks`): every task of `data/tasks.json` (chapter 03's single- and
multi-step tasks), then generated multiplications (`What is 4821 × 377?`, calculator) until there
is one per learner, shuffled with a fixed seed: thirty different prompts, so no server is helped
by a cache of the prompt the learner before sent. Each simulated learner is a thread with its own
`ServerModel` that runs its task through the harness, as chapter 03 does, asking for the text only
(`--scores` asks for each token's probabilities too, as the notebooks do).

On each server, first the batching probe and every task alone, one after another (the
one-at-a-time rate and each task's time alone), on an idle server; then all N learners start
together. Printed per server: p50/p95 seconds per
task in the room and alone, a task's time in the room against its time alone (p50, p95), finished
tasks per minute both ways and their ratio; and the batching probe: K different requests sent at
once against one alone (K times as long: queued; near 1: batched); and what the cores allow: one
request's pre-fill rate (a prompt's matrix work done in one batch) over its decode rate, about the
most tokens/s any batching can reach here, against what the room's targets would need.

The servers: llama.cpp's own `llama-server` with one slot per learner (or `--slots`)
(`kitchen.model.server.llama_server`, built from the pinned source), and llama-cpp-python's server
(`kitchen.model.server.llama_python`), which answers one request at a time.

Bounded: at most `--learners` threads (at most 64), each request times out after `--timeout`
seconds (a `ServerError`, counted as a failed task), and learners still running after
`--deadline` seconds are counted as unfinished. Nothing leaves 127.0.0.1 unless `--url` says so.

With `--write docs/speed.md` what the run prints also replaces what stands between the page's
`<!-- load_test -->` and `<!-- /load_test -->` markers, under a line naming the machine, the date
and the command (`scripts/speed_doc.py`); the page's prose is left as it is.
"""

from __future__ import annotations

import argparse
import math
import random
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import httpx
import speed_doc  # beside this script: the --write option's markers

from kitchen.chapters.tasks import Task, grade, load_tasks
from kitchen.harness.loop import run_harness
from kitchen.harness.protocols import NativeProtocol
from kitchen.model.server import build
from kitchen.model.server.client import ServerError, ServerModel
from kitchen.model.server.llama_python import llama_python_server
from kitchen.model.server.llama_server import llama_cpp_server

BARE = NativeProtocol(result_note="")  # as chapter 03 runs its multi-step tasks
MAX_LEARNERS = 64
SEED = 3


def room_tasks(n: int, seed: int = SEED) -> list[Task]:
    """`n` different tasks: data/tasks.json's, then generated multiplications, shuffled by `seed`.

    >>> tasks = room_tasks(30)
    >>> len(tasks), len({t.request for t in tasks}), tasks == room_tasks(30)
    (30, 30, True)
    """
    rng = random.Random(seed)
    tasks = load_tasks("single") + load_tasks("multi")
    seen = {t.request for t in tasks}
    while len(tasks) < n:
        a, b = rng.randint(100, 9999), rng.randint(11, 999)
        request = f"What is {a} × {b}?"
        if request not in seen:
            seen.add(request)
            tasks.append(Task(request, ["calculator"], {"call": {"name": "calculator",
                                                                 "arguments": {"expression": f"{a} * {b}"}}}))
    rng.shuffle(tasks)
    return tasks[:n]


@dataclass
class Outcome:
    task: str
    seconds: float
    completed: bool  # the task's grade: the tools ran and the answer holds the right value
    requests: int  # model calls the harness made
    error: str = ""


def one_task(url: str, tier: str, task: Task, timeout: float, scores: bool = False) -> Outcome:
    t0 = time.perf_counter()
    try:
        model = ServerModel(url, tier, timeout=timeout, scores=scores)
        trace = run_harness(model, task.request, task.functions, protocol=BARE, max_steps=5, max_new_tokens=120)
    except ServerError as err:
        return Outcome(task.request, time.perf_counter() - t0, False, 0, str(err))
    return Outcome(task.request, time.perf_counter() - t0, grade(task, trace).completed, len(trace.steps))


def crowd(url: str, tier: str, tasks: list[Task], timeout: float, deadline: float,
          scores: bool = False) -> tuple[list[Outcome], float, int]:
    """One learner per task, all at once: their outcomes, the wall time until the last finished,
    and how many were still running at the deadline."""
    outcomes: list[Outcome] = []
    lock = threading.Lock()
    start = threading.Barrier(len(tasks) + 1)

    def learner(task: Task) -> None:
        start.wait()
        outcome = one_task(url, tier, task, timeout, scores)
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=learner, args=(task,), daemon=True) for task in tasks]
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


@dataclass
class ServerRun:
    """One server's measurements: the tasks alone, the room, the probe."""

    name: str
    alone: list[Outcome]
    alone_wall: float
    room: list[Outcome]
    room_wall: float
    unfinished: int
    together: float  # the probe: K requests at once, in units of one alone
    probe_k: int
    ceiling: Ceiling

    def rate(self, out: list[Outcome], wall: float) -> float:
        return 60 * sum(not o.error for o in out) / wall if wall else float("nan")

    def slowdown(self, q: float) -> float:
        """The q-th percentile, over the tasks, of a task's time in the room against its time alone
        (a task still running at the deadline counts as infinitely slow: inf when the rank lands on one)."""
        alone = {o.task: o.seconds for o in self.alone if not o.error}
        ratios = [o.seconds / alone[o.task] for o in self.room if not o.error and o.task in alone]
        return percentile(ratios + [math.inf] * self.unfinished, q)


@dataclass
class Ceiling:
    """One request's pre-fill and decode speed on an idle server. Pre-filling does a whole prompt's
    matrix work in one batch, the most efficient shape there is, so its rate is about the most that
    any batching of decode steps can reach on this machine: `gain` is that limit, in units of one
    request's decode rate.

    >>> c = Ceiling(prefill_tps=64.0, decode_tps=21.0)
    >>> round(c.gain, 2), round(c.needed_for_p95(30, 8), 2)
    (3.05, 3.75)
    """

    prefill_tps: float
    decode_tps: float

    @property
    def gain(self) -> float:
        return self.prefill_tps / self.decode_tps

    @staticmethod
    def needed_for_p95(learners: int, slowdown: float) -> float:
        """The tokens/s gain a room needs so its tasks, all started together, end within `slowdown`
        times alone: the last of them waits for the whole room's work, about `learners` tasks' worth."""
        return learners / slowdown

    def said(self, learners: int, probe_k: int) -> str:
        return (f"what these cores allow: one request pre-fills at {self.prefill_tps:.0f} tokens/s (a whole "
                f"prompt's matrix work in one batch) and decodes at {self.decode_tps:.1f} tokens/s, so batching "
                f"can lift decoding to at most about {self.gain:.1f}× one request's tokens/s, and pre-fill not at "
                f"all. {probe_k} requests at once within 2× one alone need {probe_k / 2:.1f}× at a batch of "
                f"{probe_k}; a room of {learners} started together with p95 within 8× alone needs about "
                f"{self.needed_for_p95(learners, 8):.2f}× throughout.")


def complete(url: str, served: str, prompt: str, max_tokens: int) -> tuple[float, dict]:
    """One greedy completion of exactly `max_tokens` tokens (end of text ignored): its seconds and usage."""
    body = {"model": served, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0, "ignore_eos": True}
    t0 = time.perf_counter()
    reply = httpx.post(f"{url}/v1/completions", json=body, timeout=600)
    reply.raise_for_status()
    return time.perf_counter() - t0, reply.json()["usage"]


def measure_ceiling(url: str, served: str, tokens: int = 64) -> Ceiling:
    """`Ceiling` of an idle server: a long prompt with one token to write, then a short one with `tokens`."""
    seconds, usage = complete(url, served, "Add these up: " + ", ".join(str(n) for n in range(500, 600)) + ".\n", 1)
    prefill = usage["prompt_tokens"] / seconds
    seconds, usage = complete(url, served, "Write the alphabet backwards, one letter per line.\n", tokens)
    decode = usage["completion_tokens"] / (seconds - usage["prompt_tokens"] / prefill)
    return Ceiling(prefill, decode)


def shown(value: float, unit: str = "") -> str:
    """A measured value, or what an unfinished task's percentile is: beyond the deadline.

    >>> shown(12.04), shown(3.21, "×"), shown(math.inf, "×")
    ('12.0', '3.2×', 'unfinished')
    """
    return "unfinished" if math.isinf(value) else f"{value:.1f}{unit}"


def table(runs: list[ServerRun]) -> list[str]:
    """The result as Markdown rows, per server: the room and one learner at a time. A task that
    hit an error counts as failed, one still running at the deadline as unfinished (and in the
    percentiles as slower than any that finished); the rate counts finished tasks."""
    rows = ["| server | run | tasks finished | failed (error) | unfinished at the deadline | completed right | "
            "p50 s/task | p95 s/task | wall s | tasks/min |", "|---|---|---|---|---|---|---|---|---|---|"]
    for run in runs:
        for name, out, wall, unfinished in ((f"{len(run.room) + run.unfinished} learners at once", run.room,
                                             run.room_wall, run.unfinished),
                                            ("one learner at a time", run.alone, run.alone_wall, 0)):
            ok = [o for o in out if not o.error]
            times = [o.seconds for o in ok] + [math.inf] * unfinished
            rows.append(f"| {run.name} | {name} | {len(ok)} | {len(out) - len(ok)} | {unfinished} | "
                        f"{sum(o.completed for o in ok)} | {shown(percentile(times, 50))} | {shown(percentile(times, 95))} | "
                        f"{wall:.0f} | {run.rate(out, wall):.2f} |")
    return rows


def verdict(run: ServerRun) -> str:
    """Batched or queued (from the probe), the room's rate against one at a time, and a task's
    time in the room against alone."""
    how = ("batched" if run.together < run.probe_k / 2 else "queued") + (
        f": {run.probe_k} different requests sent at once took {run.together:.1f}× the time of one alone")
    ratio = run.rate(run.room, run.room_wall) / run.rate(run.alone, run.alone_wall)
    return (f"{run.name}: {how}. Finished tasks per minute, room against one at a time: {ratio:.2f}×; "
            f"a task's time in the room against alone: p50 {shown(run.slowdown(50), '×')}, "
            f"p95 {shown(run.slowdown(95), '×')}. {run.name}: "
            + run.ceiling.said(len(run.room) + run.unfinished, run.probe_k))


def batching_probe(url: str, served: str, n: int = 4, tokens: int = 32) -> float:
    """Seconds for `n` different requests sent at once, against one alone (same length, distinct
    prompts so no prompt cache helps): about `n` when the server queues, near 1 when it batches."""
    def ask(i: int) -> None:
        complete(url, served, f"Request {i}: list the numbers from {i} upwards, one per line.\n", tokens)

    ask(0)  # not counted: the server's first request also sets it up
    t0 = time.perf_counter()
    ask(n + 1)
    alone = time.perf_counter() - t0
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(1, n + 1)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return (time.perf_counter() - t0) / alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", choices=["both", "llama-server", "llama-cpp-python"], default="both")
    parser.add_argument("--url", help="a running server instead (its name in the table: --server)")
    parser.add_argument("--tier", default="1.5b", choices=["0.5b", "1.5b"],
                        help="the pack served (the 1.5B is the tier that completes chapter 03's tasks)")
    parser.add_argument("--learners", type=int, default=30, help=f"at most {MAX_LEARNERS}")
    parser.add_argument("--slots", type=int, help="llama-server's slots (default: one per learner)")
    parser.add_argument("--probe", type=int, default=4, help="requests the batching probe sends at once")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one request may take")
    parser.add_argument("--scores", action="store_true",
                        help="ask for each token's probabilities, as the notebooks do (slower)")
    parser.add_argument("--deadline", type=float, default=3600.0, help="seconds the room may take in all")
    parser.add_argument("--write", metavar="FILE", type=Path,
                        help="also write the result between the load_test markers in FILE (docs/speed.md)")
    args = parser.parse_args()
    if not 1 <= args.learners <= MAX_LEARNERS:
        parser.error(f"--learners: between 1 and {MAX_LEARNERS}")
    args.slots = args.slots or args.learners
    if not 1 <= args.slots <= MAX_LEARNERS:
        parser.error(f"--slots: between 1 and {MAX_LEARNERS}")
    if args.write and (why := speed_doc.check_markers(args.write, [speed_doc.LOAD_TEST])):
        parser.error(f"--write: {why}")  # before the run, not after it
    with speed_doc.tee() as printed:
        run(args)
    if args.write:
        speed_doc.write_section(args.write, speed_doc.LOAD_TEST, printed.getvalue(), fenced=False)
        print(f"(written to {args.write}, between the {speed_doc.LOAD_TEST} markers)")


def serve(name: str, args: argparse.Namespace):
    """The server to measure: the given URL, or one started here with a slot per learner."""
    if args.url:
        return nullcontext(args.url)
    if name == "llama-server":
        return llama_cpp_server(args.tier, parallel=args.slots)
    return llama_python_server(args.tier)


def measure(name: str, args: argparse.Namespace, tasks: list[Task]) -> ServerRun:
    """One server: every task alone, then the room, then the probe."""
    with serve(name, args) as url:
        model = ServerModel(url, args.tier)
        built = build.built() if name == "llama-server" and not args.url else None
        how = f" (built for: {built['label']}, {args.slots} slots)" if built else ""
        print(f"{name}{how}: {url} · model {model.served}", flush=True)
        together = batching_probe(url, model.served, args.probe)  # first: on an idle server
        ceiling = measure_ceiling(url, model.served)
        t0 = time.perf_counter()
        alone = [one_task(url, args.tier, task, args.timeout, args.scores) for task in tasks]
        alone_wall = time.perf_counter() - t0
        print(f"  alone: {len(tasks)} tasks in {alone_wall:.0f} s", flush=True)
        room, room_wall, unfinished = crowd(url, args.tier, tasks, args.timeout, args.deadline, args.scores)
        print(f"  room: {len(tasks)} learners in {room_wall:.0f} s", flush=True)
    return ServerRun(name, alone, alone_wall, room, room_wall, unfinished, together, args.probe, ceiling)


def run(args: argparse.Namespace) -> None:
    """The run itself, server by server; the report printed."""
    tasks = room_tasks(args.learners)
    names = ["llama-server", "llama-cpp-python"] if args.server == "both" else [args.server]
    print(f"{args.learners} learners, each a different task ({len(load_tasks('single')) + len(load_tasks('multi'))} "
          f"from data/tasks.json, the rest generated multiplications, seed {SEED}) · {args.tier} pack · scores "
          f"{'asked' if args.scores else 'not asked'} · {build.label(build.this_cpu())} CPU", flush=True)
    runs = [measure(name, args, tasks) for name in names]
    print("\n".join(table(runs)))
    for run_ in runs:
        print(verdict(run_))
        errors = {o.error for o in run_.room + run_.alone if o.error}
        if run_.unfinished or errors:
            print(f"{run_.name}: unfinished at the deadline: {run_.unfinished}; errors: {sorted(errors)[:3]}")
    print(f"model calls per task: {sorted({o.requests for r in runs for o in r.room + r.alone})}")


if __name__ == "__main__":
    main()
