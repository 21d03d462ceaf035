"""Chapter 06's experiment: accuracy against the number of digits, tools off and tools on.

Random multiplication problems (seeded, so every run asks the same ones) for each digit count;
tools off, the model answers alone (in batches, for speed); tools on, the harness gives it the
calculator. An answer is right when the number it commits to (`kitchen.chapters.arithmetic.extract_answer`)
is the exact product. Accuracy comes with a 95% Wilson interval, honest for small samples.

>>> make_problems(2, 3, seed=0)
[(68, 79), (19, 14), (63, 62)]
>>> [round(x, 3) for x in wilson(18, 20)]
[0.699, 0.972]
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Sequence

from kitchen.chapters.arithmetic import extract_answer
from kitchen.harness.loop import run_harness
from kitchen.harness.parsing import ParseResult, parse_tool_calls
from kitchen.tools.schemas import tool_schema
from kitchen.tools import calculator


def make_problems(digits: int, n: int, seed: int = 0) -> list[tuple[int, int]]:
    """`n` pairs of `digits`-digit numbers, the same for the same seed."""
    rng = random.Random(f"kitchen-sweep-{seed}-{digits}")
    low, high = (1 if digits == 1 else 10 ** (digits - 1)), 10 ** digits - 1
    return [(rng.randint(low, high), rng.randint(low, high)) for _ in range(n)]


def question(a: int, b: int) -> str:
    return f"What is {a} × {b}?"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval of a proportion k/n (Wilson score)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def run_off(model, problems: list[tuple[int, int]], *, batch_size: int = 8, max_new_tokens: int = 96,
            on_row: Callable[[dict], None] | None = None) -> list[dict]:
    """Tools off, answered in batches."""
    rows = []
    for start in range(0, len(problems), batch_size):
        chunk = problems[start:start + batch_size]
        gens = model.generate_batch([[{"role": "user", "content": question(a, b)}] for a, b in chunk],
                                    max_new_tokens=max_new_tokens)
        for (a, b), gen in zip(chunk, gens):
            rows.append(_row("off", a, b, gen.text, gen.text, gen.new_tokens,
                             cut_off=gen.stop_reason == "max_new_tokens"))
            if on_row:
                on_row(rows[-1])
    return rows


def run_on(model, problems: list[tuple[int, int]], *, max_new_tokens: int = 80,
           on_row: Callable[[dict], None] | None = None) -> list[dict]:
    """Tools on: the harness with the calculator, one problem at a time."""
    rows = []
    for a, b in problems:
        trace = run_harness(model, question(a, b), [calculator], max_steps=3, max_new_tokens=max_new_tokens)
        text = "\n".join(s.text for s in trace.steps)
        last = trace.steps[-1].generation
        rows.append(_row("on", a, b, trace.answer or "" if trace.stop_reason == "answer" else "", text,
                         sum(s.generation.new_tokens for s in trace.steps), call=what_was_called([(s.text, s.parsed) for s in trace.steps]),
                         cut_off=last.stop_reason == "max_new_tokens"))
        if on_row:
            on_row(rows[-1])
    return rows


CALLS = ("calculator", "another tool", "written, not parsed", "none")


def what_was_called(replies: Sequence[tuple[str, ParseResult]]) -> str:
    """One of `CALLS`, from each reply's text and what the parser found in it: a parsed calculator
    call; a parsed call to a tool that does not exist; text that reads as a call the parser could
    not find (an error, or a format it does not know, such as `<name>calculator</name>`); or no
    call at all."""
    names = [c.name for _, parsed in replies for c in parsed.calls]
    if "calculator" in names:
        return "calculator"
    if names:
        return "another tool"
    text = "\n".join(t for t, _ in replies)
    if any(parsed.errors for _, parsed in replies) or "calculator" in text or "arguments" in text:
        return "written, not parsed"
    return "none"


def _row(mode: str, a: int, b: int, answer: str, text: str, tokens: int, call: str = "none",
         cut_off: bool = False) -> dict:
    found = extract_answer(answer, cut_off=cut_off)
    return {"mode": mode, "digits": len(str(a)), "a": a, "b": b, "answer": found, "right": found == a * b,
            "called": call == "calculator", "call": call, "cut_off": cut_off, "tokens": tokens, "text": text}


def regrade(rows: list[dict], max_new_tokens: int) -> list[dict]:
    """Rows graded again from their saved text with today's rules; no model runs.

    Tools off: the answer re-extracted (a reply that used all `max_new_tokens` was cut off).
    Tools on: the saved text holds every step's reply; its calls are parsed again to say what
    was called (`what_was_called`), and the answer is read from the whole text.

    >>> regrade([{"mode": "off", "a": 12, "b": 34, "text": "12 × 34 = 408.", "tokens": 9}], 96)[0]["right"]
    True
    >>> regrade([{"mode": "on", "a": 3, "b": 4, "text": '{"name": "3 * 4", "arguments": {}}', "tokens": 9}],
    ...         96)[0]["call"]
    'another tool'
    """
    out = []
    for row in rows:
        if row["mode"] == "off":
            row = _row("off", row["a"], row["b"], row["text"], row["text"], row["tokens"],
                       cut_off=row["tokens"] >= max_new_tokens)
        else:
            parsed = parse_tool_calls(row["text"], tools=[tool_schema(calculator)])
            row = _row("on", row["a"], row["b"], row["text"], row["text"], row["tokens"],
                       call=what_was_called([(row["text"], parsed)]))
        out.append(row)
    return out


@dataclass
class Point:
    mode: str
    digits: int
    right: int
    n: int

    @property
    def accuracy(self) -> float:
        return self.right / self.n if self.n else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.right, self.n)


def summarize_sweep(rows: list[dict]) -> list[Point]:
    """Accuracy per (mode, digit count)."""
    counts: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        c = counts[(r["mode"], r["digits"])]
        c[0] += r["right"]
        c[1] += 1
    return [Point(mode, digits, k, n) for (mode, digits), (k, n) in sorted(counts.items())]
