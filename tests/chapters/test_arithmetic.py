"""The long-multiplication checker and answer extraction (examples written for the tests)."""

import pytest

from kitchen.chapters.arithmetic import check_work, extract_answer, find_rows, numbers_in

A, B = 1234, 5678


@pytest.mark.parametrize("text, expected", [
    ("1234 × 5678 equals 7,000,000,000.", 7_000_000_000),
    ("So, \\( 1234 \\times 5678 = 7,050,952 \\).", 7_050_952),
    ("The final answer is:\n\\[\n\\boxed{700000}\n\\]", 700_000),
    ("It is 7 006 652.", 7_006_652),
    ("= 7\\,006\\,652", 7_006_652),
    ("The product is 7006652. Let me know if you need more!", 7_006_652),
    ("Answer: -42", -42),
    ("I cannot compute that.", None),
    ("", None),
])
def test_extract_answer(text, expected):
    assert extract_answer(text) == expected


def test_numbers_in_reads_group_separators():
    assert [n for n, _, _ in numbers_in("1,234 and 5 678 and 7\\,006\\,652 and 12")] == [1234, 5678, 7006652, 12]


LATEX_ROWS = r"""\[
\begin{array}{r}
     1234 \\
   \times 5678 \\
   \hline
    98072 \\  (1234 \times 8) \\
   +61700 \\  (1234 \times 7, shifted one place) \\
+617000 \\  (1234 \times 6, shifted two places) \\
+6170000 \\  (1234 \times 5, shifted three places) \\
\hline
   7050952 \\
\end{array}
\]
So, \( 1234 \times 5678 = 7,050,952 \)."""


def test_latex_rows_marked_and_not_adding_up():
    check = check_work(LATEX_ROWS, A, B)
    assert [r.value for r in check.rows] == [98072, 61700, 617000, 6170000]
    assert [r.right for r in check.rows] == [False, False, False, True]
    assert check.answer == 7_050_952 and not check.answer_right
    assert check.rows_sum == 6_946_772 and check.rows_add_up is False
    assert "1 of 4 rows are right and in their place." in check.summary()
    assert "6,946,772" in check.summary()


def test_correct_rows_with_and_without_zeros():
    shifted = "  9872\n 86380\n740400\n6170000\n-------\n7006652"
    unshifted = "  9872\n  8638\n  7404\n  6170\n-------\n7006652"
    for text in (shifted, unshifted):
        check = check_work(text, A, B)
        assert all(r.right for r in check.rows) and check.answer_right and check.rows_add_up


def test_rows_in_a_code_block_highest_digit_first():
    text = "```\n  6170000\n+  740400\n+   86380\n+    9872\n---------\n  7006652\n```"
    check = check_work(text, A, B)
    assert [r.digit for r in check.rows] == [5, 6, 7, 8] and all(r.right for r in check.rows)


def test_no_rows_is_said_plainly():
    check = check_work("1234 × 5678 equals 7,000,000,000.", A, B)
    assert check.rows == [] and check.rows_add_up is None
    assert "wrote no partial-product rows" in check.summary()


def test_small_products_are_checked():
    text = "\\[ 4 \\times 8 = 32 \\]\n\\[ 3 \\times 7 = 22 \\]\nSo 1234 × 5678 = 700000"
    check = check_work(text, A, B)
    assert [(p.left, p.right_operand, p.stated, p.right) for p in check.products] == [
        (4, 8, 32, True), (3, 7, 22, False)]
    assert check.answer == 700_000


def test_find_rows_needs_a_rule_and_a_total():
    assert find_rows("12\n34\n56") == ([], None)
    assert find_rows("12\n34\n---\n46") == ([12, 34], 46)


def _generation(pieces, tops=None):
    from kitchen.model.replies import Candidate, Generation, Token

    tokens = [Token(0, p, 0.5, [Candidate(0, c, q) for c, q in (tops or {}).get(i, [])]) for i, p in enumerate(pieces)]
    return Generation("", [], [0] * len(pieces), "".join(pieces), tokens, "end_of_turn")


def test_departure_names_the_first_wrong_digit_and_the_right_digits_probability():
    from kitchen.chapters.arithmetic import departure

    reply = _generation(["It", " is", " ", "7", ",", "0", "0", "0", ",", "0", "0", "0", "."],
                        tops={7: [("0", 0.5), ("6", 0.3)]})
    d = departure(reply, 7_006_652)
    assert (d.digit_index, d.step, d.wrote, d.right_digit, d.prob_right) == (3, 7, "0", "6", 0.3)
    assert "first 3 digits right" in d.summary() and "30.0%" in d.summary()
    assert departure(_generation(["7006652"]), 7_006_652) is None
    assert departure(_generation(["no number"]), 7_006_652) is None


def test_a_row_with_the_right_digits_but_not_moved_to_its_place_is_named_as_such():
    check = check_work("  4936\n+ 9944\n+ 8638\n+ 7404\n------\n 30922", A, B)
    assert [r.unshifted for r in check.rows] == [False, False, True, False]
    assert "not moved to its place" in check.summary() and "without moving each to its place" in check.summary()
