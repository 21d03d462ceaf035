"""Chapter 03's exercises: a harness loop of your own, run against scripted replies that fail on
purpose, and what the cap does to a model that never stops calling.

The loop's contract: `loop(model, question, tools, max_steps) -> str`, where `model.generate`
gives a reply (its `.text`), `tools` are Python functions, and the return value is the model's
final answer (or a sentence saying the loop gave up).

>>> print(check_cap({"model calls": 3, "tool runs": 3}))
✗ Not yet (03.cap): 3 model calls is right; not 3 tool runs: not every call the model writes is run.
  Hint: A call is only worth running if a model call is left to read its result.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kitchen.harness.loop import run_harness
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

MAX_CALLS = 40  # a scripted model refuses to be called more often than this: the loop did not stop


def call(name: str, arguments: dict) -> str:
    """A reply holding one call, as Qwen writes it."""
    return f'<tool_call>\n{json.dumps({"name": name, "arguments": arguments})}\n</tool_call>'


def divide(a: float, b: float) -> float:
    """Divide one number by another.

    Args:
        a: The number to divide.
        b: The number to divide by.
    """
    return a / b


class RecordingScript(ScriptedModel):
    """A scripted model that keeps the messages of every call it receives."""

    def __init__(self, replies: Sequence[str]):
        super().__init__(replies)
        self.seen: list[list[dict]] = []

    def stream(self, messages, tools=None, **kwargs):
        if len(self.seen) >= MAX_CALLS:
            raise RuntimeError(f"called {MAX_CALLS} times: the loop never stopped")
        self.seen.append([dict(m) for m in messages])
        return super().stream(messages, tools, **kwargs)


@dataclass
class Case:
    """One situation the loop must handle, and how to tell that it did."""

    name: str
    replies: list[str]
    tools: list[Callable]
    max_steps: int = 5
    answer: str = ""  # the final answer the loop must return ("" when any str will do)
    fed_back: str = ""  # a word the second model call must see in a message after the first reply
    most_calls: int | None = None
    hint: str = ""


CASES = [
    Case("a plain answer", ["It is 4."], [calculator], answer="It is 4.",
         hint="When the reply holds no call, it is the answer: return its text."),
    Case("one call, then the answer", [call("calculator", {"expression": "2 + 2"}), "The sum is 4."], [calculator],
         answer="The sum is 4.", fed_back="4",
         hint="Run the call, append the assistant's reply and a {'role': 'tool', ...} message with the result, "
              "then call the model again."),
    Case("an unknown tool", [call("calc", {"expression": "2 + 2"}), call("calculator", {"expression": "2 + 2"}),
                             "The sum is 4."], [calculator], answer="The sum is 4.", fed_back="calc",
         hint="A name no tool has is an error to feed back (naming it), not a crash."),
    Case("broken JSON", ['<tool_call>\n{"name": "calculator", "arguments": {"expression": 2 + 2}}\n</tool_call>',
                         call("calculator", {"expression": "2 + 2"}), "The sum is 4."], [calculator],
         answer="The sum is 4.", fed_back="rror",
         hint="parse_tool_calls(...).errors holds what could not be read: feed each back as an error message."),
    Case("a tool that raises", [call("divide", {"a": 1, "b": 0}), "You cannot divide by zero."], [calculator, divide],
         answer="You cannot divide by zero.", fed_back="ZeroDivisionError",
         hint="Wrap the tool call in try/except and hand back the error's type and text as the result."),
    Case("the cap", [call("calculator", {"expression": "1 + 1"})] * 12, [calculator], max_steps=3, most_calls=3,
         hint="Count the model calls and stop at max_steps, returning a sentence that says so."),
]


def run_case(loop: Callable, case: Case) -> str | None:
    """None when `loop` handles `case`; otherwise what went wrong, in one sentence."""
    model = RecordingScript(case.replies)
    try:
        answer = loop(model, "What is 2 + 2?", list(case.tools), case.max_steps)
    except Exception as err:  # the learner's code: any failure is a finding
        return f"it raised {type(err).__name__}: {err}"
    calls = len(model.seen)
    if case.most_calls is not None and calls > case.most_calls:
        return f"the model was called {calls} times with max_steps={case.max_steps}"
    if not isinstance(answer, str):
        return f"it returned {type(answer).__name__}, not the answer's text"
    if case.answer and case.answer not in answer:
        return f"it returned {answer[:80]!r}, not the model's final answer"
    if case.fed_back:
        if calls < 2:
            return "the model was called only once: nothing was fed back"
        first = len(model.seen[0])
        after = [m for m in model.seen[1][first:] if m.get("role") != "assistant"]
        if not any(case.fed_back in str(m.get("content", "")) for m in after):
            return (f"the second model call did not see a message about it (looked for {case.fed_back!r} in the "
                    "messages added after the first reply)")
    return None


def check_loop(loop: Any) -> Feedback:
    """Run `loop` on six scripted situations (see `CASES`) and name each one it does not handle."""
    ex = "03.loop"
    if blank(loop):
        return not_done(ex, "`my_loop`")
    if not callable(loop):
        return wrong(ex, "`my_loop` should be a function: def my_loop(model, question, tools, max_steps): ...")
    probe = RecordingScript(["It is 4."])
    try:
        started = loop(probe, "What is 2 + 2?", [calculator], 3) is not None or bool(probe.seen)
    except Exception:  # the learner's code: the cases below say what it does
        started = True
    if not started:
        return not_done(ex, "the body of `my_loop`")
    problems = [(case, run_case(loop, case)) for case in CASES]
    failed = [(case, why) for case, why in problems if why]
    if not failed:
        return right(ex, f"your loop handles all {len(CASES)} situations: " + ", ".join(c.name for c in CASES) + ".")
    lines = [f"{len(CASES) - len(failed)} of {len(CASES)} situations handled."]
    lines += [f"{case.name}: {why}." for case, why in failed]
    return wrong(ex, "\n  ".join(lines), failed[0][0].hint)


CAP_STEPS = 3  # the cap the exercise asks about
CAP_KEYS = ("model calls", "tool runs")


@functools.lru_cache(maxsize=None)
def cap_counts(max_steps: int = CAP_STEPS) -> dict[str, int]:
    """What kitchen's harness does with a model that writes a new calculator call in every reply:
    how many model calls it makes and how many times the calculator runs, with `max_steps`."""
    runs: list[str] = []

    @functools.wraps(calculator)
    def counted(expression: str) -> str:
        runs.append(expression)
        return calculator(expression)

    model = RecordingScript([call("calculator", {"expression": f"{n} + {n}"}) for n in range(1, MAX_CALLS + 1)])
    run_harness(model, "What is 1 + 1?", [counted], max_steps=max_steps)
    return {"model calls": len(model.seen), "tool runs": len(runs)}


def check_cap(counts: Any) -> Feedback:
    """A model that writes a new calculator call in every reply, run by `run_harness` with
    max_steps=3: how many model calls, and how many times does the calculator run?"""
    ex = "03.cap"
    if blank(counts) or (isinstance(counts, dict) and any(blank(v) for v in counts.values())):
        return not_done(ex, "`my_counts`")
    if not isinstance(counts, dict) or set(counts) != set(CAP_KEYS) or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in counts.values()):
        return wrong(ex, f"give a dict with the keys {list(CAP_KEYS)}, each a whole number.")
    truth = cap_counts()
    calls, runs = counts["model calls"], counts["tool runs"]
    if counts == truth:
        return right(ex, f"{calls} model calls and {runs} tool runs: the call in reply {calls} never runs, since no "
                         "model call would be left to read its result. The run ends at the cap, without an answer.")
    problems, hint = [], ""
    if calls == truth["model calls"]:
        problems.append(f"{calls} model calls is right")
    elif calls > truth["model calls"]:
        problems.append(f"not {calls} model calls: max_steps={CAP_STEPS} caps the model calls, and the harness "
                        "never makes more than that")
        hint = "Look at what max_steps counts in kitchen.harness.loop (or in chapter 03's run_loop)."
    else:
        problems.append(f"not {calls} model calls: this model never answers in plain text, so nothing ends the "
                        "run before the cap")
        hint = "Only a plain answer or the cap ends a run."
    if runs == truth["tool runs"]:
        problems.append(f"{runs} tool runs is right")
    elif runs > calls or runs > truth["model calls"]:
        problems.append(f"not {runs} tool runs: the calculator runs at most once per reply here, and not always")
    elif runs == truth["model calls"]:
        problems.append(f"not {runs} tool runs: not every call the model writes is run")
    else:
        problems.append(f"not {runs} tool runs: too few. Each reply holds a new call, and the harness refuses "
                        "only a call repeated with the same arguments")
    return wrong(ex, "; ".join(problems) + ".", hint or "A call is only worth running if a model call is left to "
                                                        "read its result.")
