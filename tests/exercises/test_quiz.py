"""The end-of-chapter self-check: an answer says right, or why not, and the widget shows the
feedback for the option picked (the questions themselves: test_questions.py)."""

from __future__ import annotations

from kitchen.exercises.questions import QUESTIONS
from kitchen.exercises.quiz import answer, self_check


def test_answer_says_right_or_why_not():
    question = QUESTIONS["05"][2]
    assert answer(question, question.right) == f"✓ Right. {question.why}"
    other = next(i for i in range(len(question.options)) if i != question.right)
    assert answer(question, other) == f"✗ Not this one. {question.options[other].explanation}"


def test_the_widget_gives_feedback_when_an_option_is_picked():
    box = self_check("03")
    assert "kitchen-self-check" in box._dom_classes
    radios = [c for c in box.children if hasattr(c, "options")]
    feedback = [c for c in box.children if "kitchen-feedback" in c._dom_classes]
    assert len(radios) == len(feedback) == len(QUESTIONS["03"])
    assert all(r.value is None for r in radios) and all(f.value == "" for f in feedback)
    question = QUESTIONS["03"][1]
    radios[1].value = (question.right + 1) % len(question.options)
    assert feedback[1].value.count("✗ Not this one.") == 1 and feedback[0].value == ""
    radios[1].value = question.right
    assert "✓ Right." in feedback[1].value
