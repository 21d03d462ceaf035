"""Chapter 06's exercises: predict the tools-off accuracy at 4 digits, then grade three replies
from the committed sweep as its grader does.

>>> check_prediction(...).status
'not done'
>>> check_prediction(150).status
'wrong'
"""

from __future__ import annotations

from typing import Any

from kitchen.chapters.experiments import load_results
from kitchen.settings import DATA
from kitchen.chapters.sweep import summarize_sweep
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

SWEEP = DATA / "experiments" / "digits_sweep.json"
TIER = "0.5b"
CLOSE = 10  # percentage points: a prediction this near the measured accuracy counts as right
GRADES = ("right", "wrong", "cut off")
EXAMPLES = (41, 40, 124)  # rows of the committed sweep (tools off): graded right, wrong, cut off


def _run() -> dict:
    return load_results(SWEEP)[TIER]


def measured(digits: int = 4, mode: str = "off") -> tuple[int, int]:
    """(right, problems) of the committed sweep at `digits`, tools `mode`."""
    point = next(p for p in summarize_sweep(_run()["rows"]) if p.mode == mode and p.digits == digits)
    return point.right, point.n


def check_prediction(percent: Any) -> Feedback:
    """Your guess, in percent, of the 0.5B pack's accuracy on 4-digit products with tools off."""
    ex = "06.prediction"
    if blank(percent):
        return not_done(ex, "`my_guess`")
    if not isinstance(percent, (int, float)) or not 0 <= percent <= 100:
        return wrong(ex, "give a percentage, a number from 0 to 100.")
    k, n = measured()
    truth = 100 * k / n
    run = _run()
    where = f"{run['model']['model_name']}, {run['model']['dtype']}, {n} problems, committed {run['date']}"
    if abs(percent - truth) <= CLOSE:
        return right(ex, f"the committed sweep measured {k} of {n} ({truth:.0f}%), within {CLOSE} points of your "
                         f"{percent:g}% ({where}). Run the sweep below to see the whole curve.")
    direction = "higher" if percent > truth else "lower"
    return wrong(ex, f"your guess is more than {CLOSE} points {direction} than what the sweep measured.",
                 "Think back to chapter 01: how many of the digits of 1234 × 5678 did the 0.5B pack get right "
                 "before it went wrong? A right answer needs every one.")


def replies_to_grade() -> list[str]:
    """The three replies of the grading exercise, as the model wrote them (tools off), each with
    the product asked and how many tokens it used of its budget."""
    run = _run()
    budget = run["settings"]["tools_off"]["max_new_tokens"]
    return [f"{r['a']} × {r['b']} ({r['tokens']} of {budget} tokens): {r['text']}"
            for r in (run["rows"][i] for i in EXAMPLES)]


def check_grades(grades: Any) -> Feedback:
    """Grade each of `replies_to_grade()` as "right", "wrong" or "cut off", in order, as the sweep does."""
    ex = "06.grades"
    if blank(grades):
        return not_done(ex, "`my_grades`")
    if not isinstance(grades, (list, tuple)) or len(grades) != len(EXAMPLES) or any(g not in GRADES for g in grades):
        return wrong(ex, f"give {len(EXAMPLES)} grades, each one of {list(GRADES)}.")
    rows = _run()["rows"]
    truth = ["cut off" if rows[i]["cut_off"] else "right" if rows[i]["right"] else "wrong" for i in EXAMPLES]
    budget = _run()["settings"]["tools_off"]["max_new_tokens"]
    off = [i for i, (g, t) in enumerate(zip(grades, truth)) if g != t]
    if not off:
        return right(ex, f"as the sweep graded them. The third used all {budget} tokens of its budget: the number "
                         "it was writing when it was stopped is not an answer.")
    lines = []
    for i in off:
        if truth[i] == "cut off":
            lines.append(f"reply {i + 1} ran to the end of its {budget}-token budget: its last number was still "
                         "being written")
        else:
            lines.append(f"reply {i + 1} is not {grades[i]}")
    return wrong(ex, "; ".join(lines) + ".", "Multiply it out yourself, and check whether the reply ended or was stopped.")
