"""Chapter 08's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: BFCL's checker's verdicts, two committed runs joined by case id.
"""

from __future__ import annotations

import kitchen.exercises.ch08 as ch08

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch08.check_verdicts(...),
               ch08.check_overlap(...)]
    assert all(f.status == "not done" for f in shipped)


def test_verdicts_come_from_bfcls_checker():
    truth = [v.valid for v in ch08.verdicts()]
    assert truth == [True, False, False, False, True]
    assert ch08.check_verdicts(truth).right
    trusting = ch08.check_verdicts([True] * 5)
    assert "call 2 {'base': '10', 'height': 5}: the checker rejects it (Incorrect type" in trusting.message
    assert "give 5 booleans" in ch08.check_verdicts([True]).message


def both_right() -> int:
    """The answer, counted here the other way round: from the native run's lines."""
    runs = ch08.committed_runs()
    constrained = {line["id"]: line for line in runs[("0.5b", "constrained", "int8")]}
    return sum(1 for line in runs[("0.5b", "native", "int8")]
               if line["category"] == "parallel" and line["valid"] and constrained[line["id"]]["valid"])


def test_overlap_comes_from_the_committed_runs():
    assert both_right() == len(ch08.right_ids("constrained") & ch08.right_ids("native")) == 4
    assert (len(ch08.right_ids("constrained")), len(ch08.right_ids("native"))) == (83, 5)


def test_overlap():
    right = ch08.check_overlap(both_right())
    assert right.right and right.message == ("4 of the 83 parallel cases the constrained run got right, the native run "
                                             "got right too; it got 1 right that the constrained run missed.")
    assert ch08.check_overlap(4.0).right


def test_overlap_names_the_count_a_wrong_answer_is():
    assert "how many parallel cases the constrained run got right in all" in ch08.check_overlap(83).message
    assert "how many parallel cases the native run got right in all" in ch08.check_overlap(5).message
    assert "right cases that the native run got wrong" in ch08.check_overlap(79).message
    assert "only the native run got right" in ch08.check_overlap(1).message
    every = len(ch08.right_ids("constrained", None) & ch08.right_ids("native", None))
    assert "keep the parallel cases only" in ch08.check_overlap(every).message
    other = ch08.check_overlap(200)
    assert other.message == "200 is not what the committed lines give."
    assert "Keep the lines whose category is 'parallel'" in other.hint and "{line['id']: line}" in other.hint


def test_overlap_rejects_bad_types():
    for bad in ["4", 4.5, True, [4], 2.0 / 100]:
        feedback = ch08.check_overlap(bad)
        assert feedback.status == "wrong" and "a whole number" in feedback.message, bad


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("08")
