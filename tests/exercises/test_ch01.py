"""Chapter 01's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: tokens of a number, partial rows of long multiplication, the first wrong row of a
reply.
"""

from __future__ import annotations

from types import SimpleNamespace

import kitchen.exercises.ch01 as ch01

from notebook_exercises import check_ships_not_done_and_solved

# A reply of the 1.5B pack to 1234 × 5678 worked on paper (chapter 01's recording): unshifted rows.
PAPER = "  1234\nx 5678\n------\n  9872\n  8638\n  7404\n  6170\n------\n 32084"


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch01.check_digit_tokens(...),
               ch01.check_partial_rows(12, 34, ...),
               ch01.check_first_wrong_row(PAPER, 1234, 5678, ...)]
    assert all(f.status == "not done" for f in shipped)
    assert str(shipped[0]).startswith("… Not done yet (01.digit_tokens): replace the `...`")


def test_digit_tokens():
    assert ch01.check_digit_tokens(list("7006652")).right
    whole = ch01.check_digit_tokens(["7006652"])
    assert whole.status == "wrong" and "never sees 7006652 as one symbol" in whole.message
    groups = ch01.check_digit_tokens(["7", "006", "652"])
    assert groups.status == "wrong" and "longest 3 digits" in groups.message
    assert "join to '70'" in ch01.check_digit_tokens(["7", "0"]).message


def test_partial_rows():
    assert ch01.check_partial_rows(1234, 5678, [9872, 86380, 740400, 6170000]).right
    unshifted = ch01.check_partial_rows(1234, 5678, [9872, 8638, 7404, 6170])
    assert unshifted.status == "wrong" and "row 2 (the digit 7, worth 70) has the right digits but not its place" \
        in unshifted.message
    wrong_digits = ch01.check_partial_rows(1234, 5678, [9872, 86381, 740400, 6170000])
    assert "row 2 (the digit 7, worth 70) is not 1,234 × 70" in wrong_digits.message
    assert "there are 4 rows; you wrote 2" in ch01.check_partial_rows(1234, 5678, [1, 2]).message


def test_first_wrong_row_on_a_reply_with_a_wrong_row():
    reply = "  1234\nx 5678\n------\n  9872\n 86381\n740400\n6170000\n------\n7006653"
    assert ch01.check_first_wrong_row(reply, 1234, 5678, row=2, should_be=86380).right
    assert ch01.check_first_wrong_row(reply, 1234, 5678, row=2, should_be=8638).right  # the digits, unshifted
    not_it = ch01.check_first_wrong_row(reply, 1234, 5678, row=1, should_be=9872)
    assert not_it.status == "wrong" and "row 1 is not the first row the checker marks wrong" in not_it.message
    assert ch01.check_first_wrong_row(SimpleNamespace(text=reply), 1234, 5678, row=2, should_be=86380).right
    assert "`mine`" in ch01.check_first_wrong_row(..., 1234, 5678, row=..., should_be=...).message
    value = ch01.check_first_wrong_row(reply, 1234, 5678, row=2, should_be=86381)
    assert value.status == "wrong" and "86,381 is not what it should have been" in value.message


def test_first_wrong_row_without_rows_or_without_a_wrong_row():
    no_rows = ch01.check_first_wrong_row("1234 × 5678 = 7006652.", 1234, 5678, row=1, should_be=1)
    assert no_rows.status == "wrong" and "no rows of long multiplication" in no_rows.message
    assert ch01.check_first_wrong_row(PAPER, 1234, 5678, row=0).right  # unshifted rows hold the right digits
    assert "marks no row wrong" in ch01.check_first_wrong_row(PAPER, 1234, 5678, row=3, should_be=7404).message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("01")
