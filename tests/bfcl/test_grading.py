"""Replies graded by BFCL's own AST checker (`kitchen.bfcl.grading`), on BFCL's ground truth and
answers changed by hand."""

import copy

from kitchen.bfcl.data import load_cases
from kitchen.bfcl.grading import IRRELEVANT_CALL, NO_CALL, grade, ground_truth_calls
from kitchen.harness.parsing import ToolCall

CASES = load_cases()
ANSWERED = [c for c in CASES if c.answer]


def test_bfcls_own_ground_truth_grades_as_right_everywhere():
    verdicts = [grade(c, ground_truth_calls(c)) for c in ANSWERED]
    wrong = [(c.id, v.errors) for c, v in zip(ANSWERED, verdicts) if not v.valid]
    assert not wrong and len(verdicts) == 1000


def call(name, **arguments):
    return ToolCall(name, arguments, "test", "", 0, 0)


def test_perturbed_answers_are_wrong_with_bfcls_error_types():
    factorial = next(c for c in CASES if c.id == "simple_python_1")  # math.factorial(number=5)
    assert grade(factorial, [call("math.factorial", number=5)]).valid
    assert grade(factorial, [call("math.factorial", number=6)]).error_type == "value_error:others"
    assert grade(factorial, [call("math.factorial", number="5")]).error_type == "type_error:simple"
    assert "wrong_func_name" in grade(factorial, [call("factorial", number=5)]).error_type
    assert grade(factorial, []).error_type == NO_CALL
    assert "wrong_count" in grade(factorial, [call("math.factorial", number=5)] * 2).error_type
    spotify = next(c for c in CASES if c.id == "parallel_0")  # two calls: Taylor Swift, Maroon 5
    right = ground_truth_calls(spotify)
    assert grade(spotify, right).valid and grade(spotify, right[::-1]).valid  # any order
    assert not grade(spotify, right[:1]).valid
    swapped = copy.deepcopy(right)
    swapped[0].arguments["duration"], swapped[1].arguments["duration"] = 15, 20
    assert not grade(spotify, swapped).valid


def test_every_answered_case_fails_when_one_value_changes():
    failed = 0
    for case in ANSWERED:
        calls = ground_truth_calls(case)
        target = next((c for c in calls if c.arguments), None)
        if target is None:
            continue
        key = next(iter(target.arguments))
        target.arguments[key] = "a value no answer allows"
        failed += not grade(case, calls).valid
    assert failed == sum(1 for c in ANSWERED if any(x.arguments for x in ground_truth_calls(c)))


def test_irrelevance_is_right_only_without_a_call():
    case = next(c for c in CASES if c.category == "irrelevance")
    assert grade(case, []).valid
    assert grade(case, [call(case.functions[0]["name"])]).error_type == IRRELEVANT_CALL
