"""The self-check at the end of each chapter: a few questions, each answered by a click, with
feedback at once. Every wrong option has its own explanation, so a wrong answer teaches.

The questions are in `kitchen.exercises.questions`; `answer()` is the logic (tested), and
`self_check(chapter)` lays it out as a widget (CSS class `kitchen-self-check`).

>>> from kitchen.exercises.questions import QUESTIONS
>>> q = QUESTIONS["03"][0]
>>> answer(q, q.right).startswith("✓")
True
"""

from __future__ import annotations

import html

import ipywidgets as w

from kitchen.exercises.questions import QUESTIONS, Question


def answer(question: Question, choice: int) -> str:
    """The feedback for choosing option `choice` (0-based) of `question`."""
    if choice == question.right:
        return f"✓ Right. {question.why}"
    return f"✗ Not this one. {question.options[choice].explanation}"


def self_check(chapter: str) -> w.VBox:
    """The chapter's questions, one radio group each; the feedback shows as soon as one is picked."""
    rows = []
    for number, question in enumerate(QUESTIONS[chapter], start=1):
        options = w.RadioButtons(options=[(o.text, i) for i, o in enumerate(question.options)], value=None,
                                 layout=w.Layout(width="auto"))
        feedback = w.HTML()
        feedback.add_class("kitchen-feedback")

        def show(change, question=question, feedback=feedback) -> None:
            if change["new"] is not None:
                feedback.value = f"<div style='padding:2px 0 8px 0'>{html.escape(answer(question, change['new']))}</div>"

        options.observe(show, names="value")
        rows += [w.HTML(f"<b>{number}. {html.escape(question.text)}</b>"), options, feedback]
    box = w.VBox(rows)
    box.add_class("kitchen-self-check")
    return box
