"""The int8 fast mode (`KITCHEN_DTYPE=int8`) against the chapters' stories, on the live 0.5B pack.

The fast mode may become the default engine setting only while these hold with it:

- chapter 01: without tools, 1234 × 5678 comes out wrong, and its digits are written one token each;
- chapter 01: with the calculator, a call is written, parsed and run, and the answer is 7,006,652;
- chapter 03: the two-call task ends as it does on the default setting (the small pack answers after
  one call with the answer note, and runs to the cap without it; it never completes the task).

Measured here: the first two hold with int8; the third does not (without the note, int8 stops with
a wrong answer instead of looping to the cap), so int8 stays an opt-in mode, not the default.

Marked `model`: the first int8 load converts the pack to float32 once (about 40 s, 2.4 GB cached).
"""

import pytest

from kitchen.arithmetic import find_answer
from kitchen.harness import run_harness
from kitchen.models import best_dtype, load_model
from kitchen.tools import calculator
from stories import two_call_endings

pytestmark = pytest.mark.model
QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]


@pytest.fixture(scope="module")
def fast():
    return load_model("0.5b", "pack", dtype="int8", announce=False)


def test_the_fast_mode_is_announced(fast):
    line = fast.describe()
    assert "dtype: int8" in line and "re-quantized to int8" in line


def test_without_tools_a_wrong_answer_written_digit_by_digit(fast):
    reply = fast.generate(QUESTION)
    found = find_answer(reply.text)
    assert found is not None and found[0] != 7_006_652, reply.text
    _, start, end = found
    position, answer_tokens = 0, []
    for token in reply.tokens:
        if start <= position < end and token.text.strip(", "):
            answer_tokens.append(token.text.strip(", "))
        position += len(token.text)
    assert answer_tokens and all(len(t) == 1 and t.isdigit() for t in answer_tokens), answer_tokens


def test_with_the_calculator_the_call_is_parsed_and_the_answer_right(fast):
    trace = run_harness(fast, QUESTION, [calculator])
    first = trace.steps[0]
    assert [c.name for c in first.parsed.calls] == ["calculator"]
    assert first.results[0].ok and first.results[0].content == "7006652"
    assert trace.stop_reason == "answer" and "7006652" in trace.answer.replace(",", "")


def test_chapter_03_story_changes_so_int8_is_not_the_default(fast):
    """Measured: with int8, the run without the answer note ends in a plain (wrong) answer instead of
    running to the cap, so chapter 03's story does not hold, and the default stays bfloat16/float32.
    If a change makes the endings agree, this fails: then make the fast mode the default."""
    default = load_model("0.5b", "pack", dtype=best_dtype(), announce=False)
    fast_endings, default_endings = two_call_endings(fast), two_call_endings(default)
    assert default_endings == ("answer", 1, False, "cap", False)  # chapter 03, as the notebook shows it
    assert fast_endings[:3] == default_endings[:3] and not fast_endings[4]
    assert fast_endings[3] != default_endings[3]
    assert best_dtype() != "int8"
