"""Chapter 06's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: a prediction of the sweep's accuracy, grading replies.
"""

from __future__ import annotations

import kitchen.exercises.ch06 as ch06

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch06.check_prediction(...),
               ch06.check_grades(...)]
    assert all(f.status == "not done" for f in shipped)


def test_prediction():
    k, n = ch06.measured()
    truth = 100 * k / n
    assert ch06.check_prediction(truth).right
    high = ch06.check_prediction(min(100, truth + 40))
    assert high.status == "wrong" and "higher than what the sweep measured" in high.message
    assert "a number from 0 to 100" in ch06.check_prediction(250).message


def test_grades():
    assert len(ch06.replies_to_grade()) == 3 and "(96 of 96 tokens)" in ch06.replies_to_grade()[2]
    assert ch06.check_grades(["right", "wrong", "cut off"]).right
    partial = ch06.check_grades(["right", "wrong", "wrong"])
    assert partial.status == "wrong" and "reply 3 ran to the end of its 96-token budget" in partial.message
    assert "reply 1 is not wrong" in ch06.check_grades(["wrong", "wrong", "cut off"]).message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("06")
