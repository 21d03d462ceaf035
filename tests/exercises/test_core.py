"""`Feedback`, what every exercise check returns, and the helpers the checks share: its status, the
sentences a learner reads, what counts as an answer left blank, and the weightless model the checks
render prompts with."""

from __future__ import annotations

import pytest

from kitchen.exercises.core import Feedback, blank, not_done, right, template, wrong
from kitchen.tools import calculator


def test_only_a_right_status_is_right():
    assert Feedback("01.tokens", "right", "All seven digits.").right
    assert not Feedback("01.tokens", "wrong", "Not those.").right
    assert not Feedback("01.tokens", "not done", "Replace the `...`.").right


def test_feedback_reads_as_its_mark_exercise_and_message_with_the_hint_on_a_line_of_its_own():
    hinted = Feedback("01.tokens", "wrong", "Your pieces join to '70', not '7006652'.", "Join them to see.")
    assert str(hinted) == ("✗ Not yet (01.tokens): Your pieces join to '70', not '7006652'.\n"
                           "  Hint: Join them to see.")
    assert str(Feedback("02.call", "right", "It parses.")) == "✓ Right (02.call): It parses."
    assert "Hint" not in str(Feedback("02.call", "wrong", "No call found."))
    assert repr(hinted) == str(hinted)  # a cell that ends with a check shows the sentences


@pytest.mark.parametrize("answer", [..., None])
def test_an_ellipsis_or_none_is_blank(answer):
    assert blank(answer)


@pytest.mark.parametrize("answer", [0, "", [], False, "..."])
def test_a_falsy_answer_is_still_an_answer(answer):
    assert not blank(answer)


def test_the_builders_give_their_status_and_keep_the_sentences():
    todo = not_done("03.loop", "the loop")
    assert todo.status == "not done" and todo.exercise == "03.loop"
    assert todo.message == "replace the `...` of the loop with your answer, then run the cell again."
    assert str(todo).startswith("… Not done yet (03.loop): replace the `...` of the loop")
    yes = right("03.loop", "It stops at the cap.")
    assert (yes.status, yes.message, yes.hint) == ("right", "It stops at the cap.", "")
    no = wrong("03.loop", "It never stops.", "Count the steps.")
    assert (no.status, no.message, no.hint) == ("wrong", "It never stops.", "Count the steps.")
    assert wrong("03.loop", "It never stops.").hint == ""


def test_the_template_renders_the_tiers_chat_template_with_no_replies():
    small = template()
    assert small.info.tier == "0.5b" and small.replies == []
    prompt = small.render([{"role": "user", "content": "What is 12 × 34?"}], [calculator])
    assert prompt.startswith("<|im_start|>system\n") and '"name": "calculator"' in prompt
    assert prompt.endswith("<|im_start|>user\nWhat is 12 × 34?<|im_end|>\n<|im_start|>assistant\n")
    assert [small.tok.decode([i]) for i in small.encode("7006652")] == list("7006652")
    assert template("1.5b").info.tier == "1.5b"
