"""Tasks for the toy tools, and grading a harness run against them.

The tasks live in `data/tasks.json`: a request, the tools it needs, and how to check the answer.
An expected answer is never typed in by hand where a tool can give it: `{"call": ...}` runs the
tool on the right arguments to find the true value (the words of a rhyme, a product).

>>> task = load_tasks("multi")[0]
>>> task.tools, task.expected_values()
(['search_rhymes', 'count_words'], ['35'])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from kitchen.settings import DATA
from kitchen.tools import TOOLS_BY_NAME

TASKS_FILE = DATA / "tasks.json"


@dataclass
class Task:
    request: str
    tools: list[str]
    expect: dict[str, Any]
    min_calls: int = 1

    @property
    def functions(self) -> list[Callable]:
        return [TOOLS_BY_NAME[name] for name in self.tools]

    def expected_values(self) -> list[str]:
        """The phrases an answer may contain to count as right (one is enough)."""
        if "text" in self.expect:
            return list(self.expect["text"])
        call = self.expect["call"]
        value = TOOLS_BY_NAME[call["name"]](**call["arguments"])
        if "field" in self.expect:
            value = value[self.expect["field"]]
        return [str(value)]


def load_tasks(group: str) -> list[Task]:
    """The "single" or "multi" tasks."""
    return [Task(**t) for t in json.loads(TASKS_FILE.read_text())[group]]


def answer_contains(answer: str, expected: list[str]) -> bool:
    """Does the answer hold one of the expected phrases? Numbers match with or without commas.

    >>> answer_contains("It is 7,006,652.", ["7006652"])
    True
    """
    plain = answer.lower().replace(",", "").replace("\u202f", "")
    return any(e.lower().replace(",", "") in plain for e in expected)


@dataclass
class Grade:
    """How far a run got with a task."""

    called: bool  # the model wrote at least one call that was found
    right_tool: bool  # its first call named a tool the task needs
    valid: bool  # that call's arguments passed the schema and the tool ran
    tools_used: list[str] = field(default_factory=list)  # every tool that ran successfully, in order
    answer_right: bool = False
    completed: bool = False  # every needed tool ran, enough calls, and the answer is right

    def summary(self) -> str:
        marks = [("call", self.called), ("right tool", self.right_tool), ("valid", self.valid),
                 ("answer", self.answer_right)]
        return " ".join(f"{name} {'✓' if ok else '✗'}" for name, ok in marks)


def grade(task: Task, trace) -> Grade:
    """Grade a harness `Trace` against a task."""
    calls = [c for s in trace.steps for c in s.parsed.calls]
    first_result = next((r for s in trace.steps for r in s.results), None)
    used = [r.name for r in trace.results if r.ok]
    right = answer_contains(trace.answer or "", task.expected_values()) if trace.stop_reason == "answer" else False
    return Grade(
        called=bool(calls),
        right_tool=bool(calls) and calls[0].name in task.tools,
        valid=first_result is not None and first_result.ok and first_result.name in task.tools,
        tools_used=used,
        answer_right=right,
        completed=right and set(task.tools) <= set(used) and len(used) >= task.min_calls,
    )
