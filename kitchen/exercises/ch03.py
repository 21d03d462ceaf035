"""Chapter 03's exercises: a harness loop of your own, run against scripted replies that fail on
purpose, and the message that hands a tool's result back.

The loop's contract: `loop(model, question, tools, max_steps) -> str`, where `model.generate`
gives a reply (its `.text`), `tools` are Python functions, and the return value is the model's
final answer (or a sentence saying the loop gave up).

>>> print(check_tool_message({"role": "tool", "content": "408"}))
✓ Right (03.tool_message): the template wraps it as <tool_response>\\n408\\n</tool_response> in the prompt's next user turn, where the model reads it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Sequence

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


def check_tool_message(message: Any) -> Feedback:
    """The message that hands the calculator's result, "408", back to the model."""
    ex = "03.tool_message"
    if blank(message):
        return not_done(ex, "`message`")
    if not isinstance(message, dict):
        return wrong(ex, "a message is a dict with a role and a content.")
    role, content = message.get("role"), message.get("content")
    if role in ("user", "assistant", "system"):
        said = {"user": "the user said it", "assistant": "the model said it itself",
                "system": "it is an instruction"}[role]
        return wrong(ex, f"with the role {role!r} the model reads it as if {said}, not as a tool's result.",
                     "Qwen's template has a role of its own for results.")
    if role != "tool":
        return wrong(ex, f"the template knows no role {role!r}.", "Look at the roles the chat template handles.")
    if not isinstance(content, str) or "408" not in content:
        return wrong(ex, "its content should carry the result, 408, as text.")
    chat = ScriptedModel([])
    turns = [{"role": "user", "content": "What is 12 * 34?"},
             {"role": "assistant", "content": "", "tool_calls": [
                 {"type": "function", "function": {"name": "calculator", "arguments": {"expression": "12 * 34"}}}]},
             message]
    prompt = chat.render(turns, [calculator])
    if f"<tool_response>\n{content}\n</tool_response>" not in prompt:
        return wrong(ex, "the rendered prompt does not show it as a tool response.")
    return right(ex, f"the template wraps it as <tool_response>\\n{content}\\n</tool_response> in the prompt's next "
                     "user turn, where the model reads it.")
