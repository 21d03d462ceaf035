"""The calculator: exact answers, tidy-up of human notation, refusals, bounds, and properties."""

from __future__ import annotations

import ast
import importlib
import inspect
import operator
import random
import time
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kitchen.tools.expressions import MAX_DEPTH, MAX_DIGITS, MAX_LENGTH, calculator
from kitchen.tools.errors import ToolError

# How many examples each property-based test runs (the lead reports these numbers).
MAX_EXAMPLES_ANY_TEXT = 2000
MAX_EXAMPLES_ARITHMETIC_TEXT = 2000
MAX_EXAMPLES_INTEGER_TREES = 2000
DEADLINE = timedelta(milliseconds=500)  # per example: every input must be answered fast
FAST = 1.0  # seconds; a generous guard for inputs that must be refused without computing

calculator_module = importlib.import_module("kitchen.tools.expressions")


def refusal(expression: object) -> str:
    """The ToolError message for an expression that must be refused."""
    with pytest.raises(ToolError) as caught:
        calculator(expression)
    return str(caught.value)


@pytest.mark.parametrize("expression, expected", [
    ("1234 * 5678", "7006652"),
    ("1 + 2 * 3", "7"),
    ("(1 + 2) * 3", "9"),
    ("7 / 2", "3.5"),
    ("6 / 3", "2"),
    ("-7 // 2", "-4"),
    ("-7 % 3", "2"),
    ("2 ** 10", "1024"),
    ("2 ** -2", "0.25"),
    ("-3", "-3"),
    ("+4", "4"),
    ("- -4", "4"),
    ("0.1 + 0.2", "0.3"),
    ("1 / 3", "0.333333333333"),
    ("2 ** 0.5", "1.41421356237"),
    ("2.5 * 4", "10"),
    ("-0.0", "0"),
    ("1e20", "100000000000000000000"),
    ("10.0 ** 20", "100000000000000000000"),
    ("0.00001234", "0.00001234"),
    ("123456789 * 987654321", "121932631112635269"),
    ("10 ** 50 + 1", "1" + "0" * 49 + "1"),
])
def test_exact_answers(expression: str, expected: str) -> None:
    assert calculator(expression) == expected


@pytest.mark.parametrize("expression, expected", [
    ("1234 × 5678", "7006652"),
    ("3 · 4", "12"),
    ("10 ÷ 4", "2.5"),
    ("2^10", "1024"),
    ("−5 + 2", "-3"),
    ("  12 * 3  ", "36"),
    ("12 * 3 =", "36"),
    ("1,234,567 + 1", "1234568"),
    ("1,234.5 * 2", "2469"),
    ("(1,000 + 2,000) × 3", "9000"),
])
def test_human_notation_is_understood(expression: str, expected: str) -> None:
    assert calculator(expression) == expected


@pytest.mark.parametrize("expression", ["1,23 + 4", "12,3456", "1,2,3", "0.123,456", "1,234,56"])
def test_commas_outside_thousands_positions_are_refused(expression: str) -> None:
    assert "thousands" in refusal(expression)


def test_a_bare_number_argument_is_accepted() -> None:
    assert calculator(7) == "7"  # type: ignore[arg-type]


@pytest.mark.parametrize("argument", [None, [1, 2], {"expression": "1+1"}, True])
def test_non_text_arguments_are_refused(argument: object) -> None:
    assert "text" in refusal(argument)


# Independent reference: Python's own arithmetic on random whole numbers.
_rng = random.Random(20240607)
_BINARY_CASES = [(_rng.randint(-10**15, 10**15), symbol, _rng.randint(-10**15, 10**15))
                 for symbol in ("+", "-", "*", "//", "%", "/") for _ in range(30)]
_POWER_CASES = [(_rng.randint(-99, 99), _rng.randint(0, 40)) for _ in range(30)]
_REFERENCE = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
              "%": operator.mod}


@pytest.mark.parametrize("a, symbol, b", _BINARY_CASES)
def test_matches_python_arithmetic(a: int, symbol: str, b: int) -> None:
    result = calculator(f"{a} {symbol} ({b})")
    if symbol != "/":
        assert result == str(_REFERENCE[symbol](a, b))
    elif a % b == 0:
        assert result == str(a // b)
    else:
        assert float(result) == pytest.approx(a / b, rel=1e-11)


@pytest.mark.parametrize("base, exponent", _POWER_CASES)
def test_powers_match_python(base: int, exponent: int) -> None:
    assert calculator(f"({base}) ^ {exponent}") == str(base ** exponent)


@pytest.mark.parametrize("expression", ["1 / 0", "5 // 0", "5 % 0", "1 / (2 - 2)", "1.5 / 0.0", "0 ** -1"])
def test_division_by_zero_is_refused(expression: str) -> None:
    assert "zero" in refusal(expression)


@pytest.mark.parametrize("expression", [
    "9**9**9**9", "10**100000000", "2 ** (10 ** 9)", "99999 ** 99999", "10 ** 1000",
    "(10 ** 999) * (10 ** 999)", "10 ** 999 * 10", "(2 ** 3000) ** 2",
])
def test_huge_numbers_are_refused_fast(expression: str) -> None:
    start = time.perf_counter()
    message = refusal(expression)
    assert time.perf_counter() - start < FAST
    assert f"{MAX_DIGITS:,} digits" in message


def test_the_largest_allowed_whole_number_is_exact() -> None:
    assert calculator("10 ** 999") == "1" + "0" * 999
    assert len(calculator("9 ** 1047")) == MAX_DIGITS  # 9**1047 has exactly 1,000 digits


@pytest.mark.parametrize("expression", ["1e400", "1e308 * 10", "1.5 ** 100000", "(10 ** 400) * 1.5",
                                        "(10 ** 500) ** 0.5"])
def test_decimal_overflow_is_refused(expression: str) -> None:
    assert "too large" in refusal(expression)


def test_negative_base_to_a_fractional_power_is_refused() -> None:
    assert "real-number" in refusal("(-8) ** (1/3)")


@pytest.mark.parametrize("expression, says", [
    ("x", "name"),
    ("pi * 2", "name"),
    ("5 x 3", "* instead of x"),
    ("__import__('os').system('echo hacked')", "function call"),
    ("abs(-3)", "function call"),
    ("2(3 + 4)", "explicit *"),
    ("(1).real", "attribute"),
    ("x.__class__", "attribute"),
    ("'12' * 3", "quotes"),
    ("True + 1", "not a number"),
    ("None", "not a number"),
    ("2j", "imaginary"),
    ("1 < 2", "comparison"),
    ("1 and 2", "operator"),
    ("~5", "operator"),
    ("1 << 3", "operator"),
    ("[1, 2]", "List"),
    ("{1: 2}", "Dict"),
    ("lambda: 1", "Lambda"),
    ("(lambda: 1)()", "function call"),
    ("1 if 2 else 3", "IfExp"),
    ("(y := 3)", "NamedExpr"),
    ("1 +", "Could not read"),
    ("(1 + 2", "Could not read"),
    ("50%", "percentage"),
    ("1; 2", "Could not read"),
    ("a\x00b", "Could not read"),
])
def test_anything_but_arithmetic_is_refused_with_a_reason(expression: str, says: str) -> None:
    assert says in refusal(expression)


@pytest.mark.parametrize("expression", ["", "   ", "=", " = "])
def test_empty_expressions_are_refused(expression: str) -> None:
    assert "empty" in refusal(expression)


def test_length_limit() -> None:
    ok = "+".join(["1"] * (MAX_LENGTH // 2))  # 299 characters
    assert len(ok) <= MAX_LENGTH and calculator(ok) == str(MAX_LENGTH // 2)
    too_long = ok + "+1"
    assert f"limit is {MAX_LENGTH}" in refusal(too_long)


def test_nesting_limit_counts_real_nesting_not_flat_chains() -> None:
    # A number under 39 signs sits 40 levels deep, the limit; one more sign is too deep.
    assert calculator("-" * (MAX_DEPTH - 1) + "1") == "-1"
    assert f"{MAX_DEPTH} levels" in refusal("-" * MAX_DEPTH + "1")
    assert f"{MAX_DEPTH} levels" in refusal("**".join(["1"] * 60))
    assert calculator("+".join(["1"] * 120)) == "120"  # a long flat sum is not nested


def test_deep_brackets_are_refused_or_answered_never_crash() -> None:
    assert calculator("(" * 149 + "7" + ")" * 149) == "7"


def test_the_module_never_calls_eval_exec_or_compile() -> None:
    tree = ast.parse(inspect.getsource(calculator_module))
    called = {node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not called & {"eval", "exec", "compile", "__import__", "getattr"}


# Property-based tests ------------------------------------------------------------------------

def answers_or_refuses(text: str) -> None:
    """The calculator returns a string or raises ToolError; any other exception fails the test."""
    try:
        result = calculator(text)
    except ToolError as err:
        assert str(err)
    else:
        assert isinstance(result, str) and result


@settings(max_examples=MAX_EXAMPLES_ANY_TEXT, deadline=DEADLINE, database=None)
@given(st.text(max_size=MAX_LENGTH + 20))
def test_any_text_gives_a_string_or_a_tool_error(text: str) -> None:
    answers_or_refuses(text)


# Arithmetic-looking text: a soup of tokens (mostly malformed), and well-formed expressions over
# every operator and awkward numbers (zero, huge, tiny, decimals), so the evaluator's limits are hit.
_TOKENS = ["0", "1", "2", "7", "9", "10", "99", "123", "1,234", "0.5", "1e5", "1e300", " ", " ",
           "+", "-", "*", "/", "//", "%", "**", "^", "×", "÷", "·", "(", "(", ")", ")", ",", ".", "="]
_NUMBERS = st.one_of(st.integers(min_value=-10**4, max_value=10**4).map(str),
                     st.sampled_from(["0", "0.0", "2.5", "1e-5", "1e300", "999", "1,234,567", "-1"]))
_OPERATORS = ["+", " - ", "*", "/", "//", "%", "**", " ^ ", "×", "÷", "-"]
token_soup = st.lists(st.sampled_from(_TOKENS), max_size=80).map("".join)
well_formed = st.recursive(
    _NUMBERS,
    lambda children: st.builds(lambda left, op, right, brackets: f"({left}{op}{right})" if brackets
                               else f"{left}{op}{right}",
                               children, st.sampled_from(_OPERATORS), children, st.booleans()),
    max_leaves=12)
arithmetic_looking = st.one_of(token_soup, well_formed)


@settings(max_examples=MAX_EXAMPLES_ARITHMETIC_TEXT, deadline=DEADLINE, database=None)
@given(arithmetic_looking)
def test_arithmetic_looking_text_gives_a_string_or_a_tool_error(text: str) -> None:
    answers_or_refuses(text)


_PYTHON_OPS = {"+": operator.add, "-": operator.sub,
               "*": operator.mul, "×": operator.mul, "·": operator.mul}
integer_trees = st.recursive(
    st.integers(min_value=-10**6, max_value=10**6),
    lambda children: st.tuples(children, st.sampled_from(sorted(_PYTHON_OPS)), children),
    max_leaves=12)


def render(tree: int | tuple) -> str:
    if isinstance(tree, int):
        return str(tree)
    left, symbol, right = tree
    return f"({render(left)} {symbol} {render(right)})"


def exact_value(tree: int | tuple) -> int:
    if isinstance(tree, int):
        return tree
    left, symbol, right = tree
    return _PYTHON_OPS[symbol](exact_value(left), exact_value(right))


@settings(max_examples=MAX_EXAMPLES_INTEGER_TREES, deadline=DEADLINE, database=None)
@given(integer_trees)
def test_integer_expressions_match_python_exactly(tree: int | tuple) -> None:
    expression = render(tree)
    assert len(expression) <= MAX_LENGTH
    assert calculator(expression) == str(exact_value(tree))
