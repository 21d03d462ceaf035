"""The self-check questions: every chapter has 3 to 5, each wrong option explains itself, and the
right option is not always in the same place."""

from __future__ import annotations

import pytest

from kitchen.exercises.questions import QUESTIONS, Option, q

CHAPTERS = [f"{n:02d}" for n in range(1, 9)]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_chapter_has_three_to_five_questions_that_teach(chapter):
    questions = QUESTIONS[chapter]
    assert 3 <= len(questions) <= 5
    for question in questions:
        assert len(question.options) >= 3 and question.why
        wrong = [o for i, o in enumerate(question.options) if i != question.right]
        assert all(o.explanation for o in wrong), question.text
        assert not question.options[question.right].explanation


def test_the_right_option_is_not_always_first():
    assert len({q.right for qs in QUESTIONS.values() for q in qs}) == 3


def test_q_puts_the_right_option_at_its_position_among_the_wrong_ones_in_order():
    wrong = (("A", "not A"), ("B", "not B"))
    last = q("Which?", "R", "because", *wrong, position=2)
    assert last.options == (Option("A", "not A"), Option("B", "not B"), Option("R"))
    assert (last.right, last.text, last.why) == (2, "Which?", "because")
    first = q("Which?", "R", "because", *wrong)
    assert first.right == 0 and first.options[0] == Option("R", "")
    assert [o.text for o in first.options] == ["R", "A", "B"]
