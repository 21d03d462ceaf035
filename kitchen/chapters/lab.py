"""The logic behind the tools-off / tools-on comparisons (chapter 01's last cell, chapter 06's dashboard).

Plain functions, so they can be tested without a widget: ask a question with tools off and on,
and check the answer when the question is arithmetic.

>>> exact_answer("What is 1234 × 5678?")
7006652
>>> exact_answer("Who wrote Humpty Dumpty?") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from kitchen.chapters.arithmetic import extract_answer
from kitchen.model.selection import TIERS, installed_tiers, server_url
from kitchen.model.replay.runs import RECORDINGS
from kitchen.settings import current
from kitchen.model.replies import Generation, Token
from kitchen.harness.loop import Event, Trace, run_harness
from kitchen.tools import ToolError, calculator

# "1234 × 5678", "12*34", "987 x 654", "3 + 4 * 2": numbers joined by arithmetic operators
EXPRESSION = re.compile(r"\d[\d,]*(?:\s*(?:[-+*/×x÷^]|\*\*)\s*\d[\d,]*)+")


def exact_answer(question: str) -> int | None:
    """The exact integer answer when the question holds one arithmetic expression, else None."""
    match = EXPRESSION.search(question)
    if not match:
        return None
    try:
        value = calculator(match.group().replace("x", "*"))
    except ToolError:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def answer_line(reply: str, exact: int | None) -> str:
    """One line: the number the reply commits to, and whether it is right."""
    if exact is None:
        return "no exact answer to check against"
    found = extract_answer(reply)
    if found is None:
        return f"no number found; the right answer is {exact:,}"
    mark = "✓ right" if found == exact else f"✗ wrong (right: {exact:,})"
    return f"answer {found:,}: {mark}"


@dataclass
class Comparison:
    question: str
    exact: int | None
    off: Generation
    on: Trace

    @property
    def off_line(self) -> str:
        return answer_line(self.off.text, self.exact)

    @property
    def on_line(self) -> str:
        return answer_line(self.on.answer or "", self.exact)


def ask_tools_off(model, question: str, on_token: Callable[[Token], None] | None = None,
                  max_new_tokens: int = 256) -> Generation:
    """The question alone, no tools: whatever the model writes."""
    stream = model.stream([{"role": "user", "content": question}], max_new_tokens=max_new_tokens)
    for token in stream:
        if on_token:
            on_token(token)
    return stream.result


def ask_tools_on(model, question: str, tools: Sequence[Callable],
                 on_event: Callable[[Event], None] | None = None, max_new_tokens: int = 256) -> Trace:
    """The same question through the harness, with tools."""
    return run_harness(model, question, tools, on_event=on_event, max_new_tokens=max_new_tokens)


def compare(model, question: str, tools: Sequence[Callable], **kwargs) -> Comparison:
    """Tools off, then tools on, for one question."""
    off = ask_tools_off(model, question)
    on = ask_tools_on(model, question, tools, **kwargs)
    return Comparison(question, exact_answer(question), off, on)


def available_sources() -> list[tuple[str, tuple[str, str]]]:
    """What the dashboard's tier picker offers: the inference server `KITCHEN_MODEL` names (a
    classroom's), each installed pack, and each tier's replay.

    Returns (label, (tier, source)) pairs, live sources first.
    """
    url = server_url(current().model)
    served = [(f"{t.label} · inference server {url}", (t.name, "server")) for t in TIERS.values()] if url else []
    live = [(f"{TIERS[t].label} · offline pack (live)", (t, "pack")) for t in installed_tiers()]
    replay = [(f"{t.label} · replay (recorded)", (t.name, "replay")) for t in TIERS.values()
              if any((RECORDINGS / t.name).glob("*.json"))]
    return served + live + replay
