"""Chapter 08's exercises: predict BFCL's verdict on five calls for one case, and join two
committed runs by case id: which cases did both get right?

>>> check_verdicts([True, False, False, False, True]).status
'right'
"""

from __future__ import annotations

import functools
import numbers
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


PACK, DTYPE, CATEGORY = "0.5b", "int8", "parallel"


@functools.lru_cache(maxsize=None)
def right_ids(mode: str, category: str | None = CATEGORY) -> frozenset[str]:
    """The ids of the cases the 0.5B pack's committed int8 run in `mode` got right (in `category`,
    or in every category for None)."""
    return frozenset(line["id"] for line in committed_runs()[(PACK, mode, DTYPE)]
                     if line["valid"] and category in (None, line["category"]))


def check_overlap(count: Any) -> Feedback:
    """Of the `parallel` cases the 0.5B pack's constrained int8 run got right, how many did its
    native int8 run get right as well? Counted by joining the two runs' lines by case id."""
    ex = "08.overlap"
    if blank(count):
        return not_done(ex, "`my_count`")
    if isinstance(count, float) and count.is_integer():
        count = int(count)
    if not isinstance(count, numbers.Integral) or isinstance(count, bool):
        return wrong(ex, "give a count of cases: a whole number.")
    constrained, native = right_ids("constrained"), right_ids("native")
    both = constrained & native
    count = int(count)
    if count == len(both):
        return right(ex, f"{len(both)} of the {len(constrained)} parallel cases the constrained run got right, the "
                         f"native run got right too; it got {len(native - constrained)} right that the constrained "
                         "run missed.")
    hint = ("Make a dict {line['id']: line} of the native run's lines, then go through the constrained run's "
            "parallel lines and count those valid in both.")
    known = {
        len(constrained): "that is how many parallel cases the constrained run got right in all; keep those the "
                          "native run got right as well",
        len(native): "that is how many parallel cases the native run got right in all; the question starts from "
                     "the constrained run's right cases",
        len(constrained - native): "that counts the constrained run's right cases that the native run got wrong",
        len(native - constrained): "that counts the cases only the native run got right",
        len(right_ids("constrained", None) & right_ids("native", None)): "that counts every category; keep the "
                                                                         "parallel cases only",
    }
    if count in known:
        return wrong(ex, f"{count}: {known[count]}.", hint)
    return wrong(ex, f"{count} is not what the committed lines give.",
                 "Keep the lines whose category is 'parallel'. " + hint)
