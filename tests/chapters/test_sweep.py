"""Chapter 06's experiment logic: problems, answer extraction on real-looking replies, intervals."""

import pytest

from kitchen.chapters.arithmetic import extract_answer
from kitchen.chapters.sweep import make_problems, question, regrade, summarize_sweep, wilson


def test_problems_are_seeded_and_have_the_right_size():
    assert make_problems(3, 5, seed=0) == make_problems(3, 5, seed=0)
    assert make_problems(3, 5, seed=0) != make_problems(3, 5, seed=1)
    for d in range(1, 7):
        for a, b in make_problems(d, 20):
            assert len(str(a)) == len(str(b)) == d
    assert make_problems(4, 3, seed=2)[:2] == make_problems(4, 2, seed=2)  # a prefix of the same stream
    assert question(12, 34) == "What is 12 × 34?"


# Replies in the shapes the packs write (and a few they might): the number to extract, or None.
REPLIES = [
    ("1234 × 5678 equals 7,000,000,000.", 7_000_000_000),
    ("The result of 1234 × 5678 is 7006652.", 7_006_652),
    ("The tool's result is 645498.", 645_498),
    ("To calculate \\( 12 \\times 34 \\), ...\n\\[\n\\boxed{408}\n\\]", 408),
    ("So, \\( 1234 \\times 5678 = 7,050,952 \\).", 7_050_952),
    ("56 × 78 = 4368", 4368),
    ("The product of 56 and 78 is 4 368.", 4368),
    ("7 * 8 = 56. Let me know if you need anything else!", 56),
    ("The answer is:\n\n**4368**", 4368),
    ("Sure! 123 × 456 equals 56,088. This was calculated by multiplying.", 56_088),
    ("I can't do that.", None),
]


@pytest.mark.parametrize("reply, expected", REPLIES)
def test_answer_extraction(reply, expected):
    assert extract_answer(reply) == expected


# Replies the 0.5B pack wrote in the sweep that ran out of tokens before an answer (shortened):
# the operands it assigned or the step it stopped on must not count as its answer.
CUT_OFF = [
    "To find the product of 979 and 490, you can use the following Python code:\n\n```python\n"
    "num1 = 979\nnum2 = 490\nproduct = num1 * num2\nprint(product)\n```\n\nSo, 97",
    "The distributive property states that \\(a \\times (b + c) = ab + ac\\). Here, \\(a = 37776\\), "
    "\\(b = 93653\\), and \\(c = 1\\). Applying the distributive property, we get:",
]


@pytest.mark.parametrize("reply", CUT_OFF)
def test_a_reply_cut_off_before_its_answer_has_none(reply):
    assert extract_answer(reply, cut_off=True) is None


def test_a_reply_cut_off_after_its_answer_keeps_it():
    assert extract_answer("12 × 34 = 408. To check, multiply 408 by", cut_off=True) == 408
    assert extract_answer("x = 12 and the product = 408", cut_off=True) is None  # names, not answers


def test_regrade_marks_cut_off_rows_and_says_what_tools_on_called():
    called = '{"name": "calculator", "arguments": {"expression": "301 * 360"}}\nThe result is 108360.'
    misnamed = '{"name": "301 * 360", "arguments": {}}\nThe tool \'301 * 360\' is not available.'
    unparsed = '<name>calculator</name>\n<arguments>{"expression": "301 * 360"}</arguments>'
    rows = [{"mode": "off", "a": 979, "b": 490, "text": CUT_OFF[0], "tokens": 96},
            {"mode": "off", "a": 12, "b": 34, "text": "12 × 34 = 408.", "tokens": 9}]
    rows += [{"mode": "on", "a": 301, "b": 360, "text": text, "tokens": 5} for text in (called, misnamed, unparsed)]
    off_cut, off_done, on_right, on_misnamed, on_unparsed = regrade(rows, max_new_tokens=96)
    assert off_cut["cut_off"] and off_cut["answer"] is None and not off_cut["right"]
    assert not off_done["cut_off"] and off_done["answer"] == 408 and off_done["right"]
    assert (on_right["call"], on_right["right"]) == ("calculator", True)
    assert (on_misnamed["call"], on_misnamed["answer"]) == ("another tool", None)  # 360 is an operand
    assert on_unparsed["call"] == "written, not parsed" and not on_unparsed["called"]


def test_wilson_interval():
    low, high = wilson(18, 20)
    assert 0.69 < low < 0.70 and 0.97 < high < 0.98
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_summarize_counts_per_mode_and_digits():
    rows = [{"mode": "off", "digits": 2, "right": True}, {"mode": "off", "digits": 2, "right": False},
            {"mode": "on", "digits": 2, "right": True}]
    points = {(p.mode, p.digits): (p.right, p.n) for p in summarize_sweep(rows)}
    assert points == {("off", 2): (1, 2), ("on", 2): (1, 1)}
