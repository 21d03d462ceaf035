"""Chapter 08's exercises: predict BFCL's verdict on five calls for one case, and read an
accuracy off a committed run.

>>> check_verdicts([True, False, False, False, True]).status
'right'
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kitchen.bfcl.data import load_cases
from kitchen.bfcl.grading import grade
from kitchen.bfcl.results import committed_runs
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

CASE = "simple_python_0"  # "Find the area of a triangle with a base of 10 units and height of 5 units."
CANDIDATES = [
    {"base": 10, "height": 5},
    {"base": "10", "height": 5},
    {"base": 10, "height": 5, "unit": "cm"},
    {"base": 10, "height": 5, "color": "red"},
    {"height": 5, "base": 10, "unit": "units"},
]


def triangle_case():
    return next(c for c in load_cases(["simple_python"]) if c.id == CASE)


def verdicts():
    """BFCL's checker on each candidate call."""
    c = triangle_case()
    name = c.functions[0]["name"]
    return [grade(c, [SimpleNamespace(name=name, arguments=args)]) for args in CANDIDATES]


def check_verdicts(predictions: Any) -> Feedback:
    """True or False for each call in `CANDIDATES`: does BFCL's AST checker accept it?"""
    ex = "08.verdicts"
    if blank(predictions):
        return not_done(ex, "`my_predictions`")
    if not isinstance(predictions, (list, tuple)) or len(predictions) != len(CANDIDATES) or \
            not all(isinstance(p, bool) for p in predictions):
        return wrong(ex, f"give {len(CANDIDATES)} booleans, one per call, in order.")
    actual = verdicts()
    off = [i for i, (p, v) in enumerate(zip(predictions, actual)) if p != v.valid]
    if not off:
        return right(ex, "you read the checker's rules right: types are strict, values must be among the possible "
                         "answers, unknown parameters fail, and the order of arguments does not matter.")
    lines = [f"call {i + 1} {CANDIDATES[i]}: the checker {'accepts' if actual[i].valid else 'rejects'} it"
             + (f" ({actual[i].errors[0]})" if actual[i].errors else "") for i in off]
    return wrong(ex, "\n  ".join(lines), "Print triangle_case().answer: the possible answers list every value accepted.")


def accuracy(tier: str, mode: str, dtype: str, category: str) -> float:
    """Percent right in `category` of a committed run."""
    lines = [line for line in committed_runs()[(tier, mode, dtype)] if line["category"] == category]
    return 100 * sum(bool(line["valid"]) for line in lines) / len(lines)


def check_accuracy(percent: Any, tier: str = "0.5b", mode: str = "native", dtype: str = "int8",
                   category: str = "parallel") -> Feedback:
    """The accuracy (in percent, one decimal) of a committed run in one category, counted from
    its lines with `read_results`."""
    ex = "08.accuracy"
    if blank(percent):
        return not_done(ex, "`my_accuracy`")
    if not isinstance(percent, (int, float)):
        return wrong(ex, "give a percentage, a number.")
    truth = accuracy(tier, mode, dtype, category)
    if abs(percent - truth) < 0.05:
        return right(ex, f"{truth:.1f}% of the {category} cases of the {tier} {mode} run ({dtype}).")
    if 0 < percent <= 1 and abs(100 * percent - truth) < 5:
        return wrong(ex, "that looks like a fraction; give it in percent.")
    return wrong(ex, f"{percent:g}% is not what the committed lines give.",
                 f"Keep the lines whose category is {category!r}, count those whose 'valid' is true, divide "
                 "by how many there are.")
