"""Chapter 08's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: BFCL's checker's verdicts, an accuracy from the committed lines.
"""

from __future__ import annotations

import kitchen.exercises.ch08 as ch08

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch08.check_verdicts(...),
               ch08.check_accuracy(...)]
    assert all(f.status == "not done" for f in shipped)


def test_verdicts_come_from_bfcls_checker():
    truth = [v.valid for v in ch08.verdicts()]
    assert truth == [True, False, False, False, True]
    assert ch08.check_verdicts(truth).right
    trusting = ch08.check_verdicts([True] * 5)
    assert "call 2 {'base': '10', 'height': 5}: the checker rejects it (Incorrect type" in trusting.message
    assert "give 5 booleans" in ch08.check_verdicts([True]).message


def test_accuracy():
    truth = ch08.accuracy("0.5b", "native", "int8", "parallel")
    assert ch08.check_accuracy(round(truth, 1)).right
    assert "looks like a fraction" in ch08.check_accuracy(truth / 100).message
    assert "is not what the committed lines give" in ch08.check_accuracy(truth + 10).message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("08")
