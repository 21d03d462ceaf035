"""A safe calculator for arithmetic written by people or by a language model.

What it does: tidies up the usual ways people write sums (`×`, `·`, `÷`, `^`, `−`, thousands
separators such as 1,234,567, surrounding spaces, a trailing `=`), parses the text with
`ast.parse(..., mode="eval")` and walks the syntax tree itself, allowing only numbers,
unary + and -, and + - * / // % ** with parentheses. Whole numbers stay exact (Python ints).

What it deliberately does not do: it never runs the text as Python (no eval, exec or compile of
code), so names, function calls, attributes, strings, lists and comparisons are refused. It has no
variables, no functions (sqrt, sin...) and no percent sign. It refuses work it cannot bound: the
size of every power and product is estimated before it is computed, so `9**9**9**9` is refused at
once instead of running for ever. Whatever the text, it returns a string or raises `ToolError`.
"""

from __future__ import annotations

import ast
import math
import re
from decimal import Decimal

from kitchen.tools.errors import ToolError

MAX_LENGTH = 300  # characters of input
MAX_DEPTH = 40  # levels of nesting, the number itself included; a flat chain like 1+2+3 adds none
MAX_DIGITS = 1_000  # digits of any whole number, intermediate or final

_LOG10_2 = math.log10(2)
_ALLOWED = "numbers, + - * / // % ** and parentheses"

_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_REPLACEMENTS = (("×", "*"), ("·", "*"), ("⋅", "*"), ("÷", "/"), ("−", "-"), ("^", "**"))
# 1,234,567 but not 1,23 or 12,3456 or the digits after a decimal point.
_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w,])")

Number = int | float


def calculator(expression: str) -> str:
    """Work out an arithmetic expression exactly and return the result as text. Use this for any
    arithmetic instead of calculating in your head: copy the numbers from the user's question into
    one expression, with * for times and / for divided by.
    It understands numbers, + - * / // (whole-number division) % (remainder) ** (power) and
    parentheses; it has no variables and no functions such as sqrt. Whole-number results are
    exact; other results have up to 12 significant digits.

    Args:
        expression: The arithmetic to work out, written with numbers and operators only.

    Returns:
        The result as a string, e.g. "7006652".

    Raises:
        ToolError: If the text is not plain arithmetic, divides by zero, is longer than 300
            characters, nests more than 40 levels deep, or would make a number of more than
            1,000 digits.

    Example:
        >>> calculator("1234 * 5678")
        '7006652'
        >>> calculator("2^10 ÷ 4 =")
        '256'
        >>> calculator("1,000,000 / 3")
        '333333.333333'
    """
    text = _normalise(_as_text(expression))
    try:
        tree = ast.parse(text, mode="eval")
        if _nesting(tree) > MAX_DEPTH:
            raise ToolError(f"The expression nests more than {MAX_DEPTH} levels deep; "
                            "write it more simply, with fewer brackets or signs inside each other.")
        return _format(_evaluate(tree.body, text))
    except ToolError:
        raise
    except SyntaxError as err:
        raise ToolError(_syntax_message(text, err.msg)) from None
    except (RecursionError, MemoryError):
        raise ToolError(f"The expression is too deeply nested to work out; write it more simply "
                        f"using {_ALLOWED}.") from None
    except OverflowError:
        raise ToolError("A number in this calculation is too large: decimal numbers stop near "
                        f"1.8e308 and whole numbers at {MAX_DIGITS:,} digits.") from None
    except (ArithmeticError, ValueError, TypeError) as err:
        # ValueError also covers null bytes and unencodable text rejected by the parser.
        raise ToolError(f"Could not work out {text!r} ({err}); use {_ALLOWED}.") from None


def _as_text(expression: object) -> str:
    """The expression as a string; a bare number is accepted too, anything else refused."""
    if isinstance(expression, bool) or not isinstance(expression, (str, int, float)):
        raise ToolError(f'The expression must be text such as "12 * 3", not {type(expression).__name__}.')
    return str(expression)


def _normalise(text: str) -> str:
    """Strip spaces and a trailing '=', turn ×, ·, ÷, −, ^ into Python operators, drop thousands commas.

    >>> _normalise(" 1,234 × 2^3 = ")
    '1234 * 2**3'
    """
    text = text.strip()
    if len(text) > MAX_LENGTH:
        raise ToolError(f"The expression is {len(text)} characters long; the limit is {MAX_LENGTH}. "
                        "Split the calculation into smaller steps.")
    text = text.rstrip("=").rstrip()
    if not text:
        raise ToolError('The expression is empty; give some arithmetic such as "1234 * 5678".')
    for old, new in _REPLACEMENTS:
        text = text.replace(old, new)
    return _THOUSANDS.sub(lambda match: match.group().replace(",", ""), text)


def _syntax_message(text: str, reason: str) -> str:
    message = f"Could not read {text!r} as arithmetic ({reason}). Use {_ALLOWED}, for example (2 + 3) * 4."
    if re.search(r"\d\s*[xX]\s*[\d(]", text):
        message += " For multiplication write * instead of x."
    if "%" in text and re.search(r"%\s*($|[)+\-*/])", text):
        message += " % means remainder here; for a percentage multiply and divide by 100 (20 * 50 / 100)."
    return message


def _nesting(tree: ast.AST) -> int:
    """How deeply the syntax tree nests; the left side of a flat chain (1 + 2 + 3) adds no level."""
    deepest, stack = 0, [(tree, 0)]
    while stack:  # iterative, so that measuring depth cannot itself run out of stack
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in ast.iter_child_nodes(node):
            flat = isinstance(node, ast.BinOp) and child is node.left and isinstance(child, ast.BinOp)
            stack.append((child, depth if flat else depth + 1))
    return deepest


def _segment(text: str, node: ast.AST) -> str:
    return ast.get_source_segment(text, node) or type(node).__name__


def _evaluate(node: ast.AST, text: str) -> Number:
    """The value of an expression node; anything but a number or arithmetic raises ToolError."""
    if isinstance(node, ast.Constant):
        return _number(node, text)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _evaluate(node.operand, text)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPERATORS):
        left = _evaluate(node.left, text)
        right = _evaluate(node.right, text)
        return _checked(_binary(node, left, right, text), node, text)
    raise ToolError(_refusal(node, text))


def _number(node: ast.Constant, text: str) -> Number:
    value = node.value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _checked(value, node, text)
    where = _segment(text, node)
    if isinstance(value, complex):
        raise ToolError(f"{where} is an imaginary number; this calculator only works with real numbers.")
    if isinstance(value, str):
        raise ToolError(f"{where} is text in quotes, not a number; write the number without quotes.")
    raise ToolError(f"{where} is not a number; use {_ALLOWED}.")


def _refusal(node: ast.AST, text: str) -> str:
    """A message saying why this piece of the expression is not allowed."""
    where = _segment(text, node)
    if isinstance(node, ast.Name):
        hint = " For multiplication write * instead of x." if node.id in ("x", "X") else ""
        return (f"{node.id!r} is a name, not a number: the calculator has no variables or constants. "
                f"Write the numbers themselves; it understands {_ALLOWED}.{hint}")
    if isinstance(node, ast.Call):
        if isinstance(node.func, (ast.Constant, ast.BinOp, ast.UnaryOp)):
            return f"{where} needs an explicit *, for example 2 * (3 + 4)."
        return f"{where} is a function call; the calculator has no functions. Use {_ALLOWED} only."
    if isinstance(node, ast.Attribute):
        return f"{where} reads an attribute with '.'; only {_ALLOWED} are allowed."
    if isinstance(node, ast.Tuple):
        return ("Commas are only understood as thousands separators, like 1,234,567. "
                "Give one expression without other commas.")
    if isinstance(node, ast.Compare):
        return f"{where} is a comparison, not arithmetic; the calculator only works out a number."
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp)):
        return f"{where} uses an operator the calculator does not support; use {_ALLOWED}."
    return f"{where} is not arithmetic ({type(node).__name__}); the calculator only understands {_ALLOWED}."


def _too_big(where: str, digits: float | None = None) -> ToolError:
    known = digits is not None and digits < 1e15
    size = f"about {digits:,.0f} digits" if known else "an enormous number of digits"
    return ToolError(f"{where} would have {size}; this calculator stops at {MAX_DIGITS:,} digits. "
                     "Try a smaller calculation.")


def _int_digits(n: int) -> float:
    """An estimate of how many decimal digits n has, never below the true count."""
    return n.bit_length() * _LOG10_2 + 1


def _binary(node: ast.BinOp, a: Number, b: Number, text: str) -> Number:
    """a op b, refusing division by zero and estimating the size of big results before computing."""
    op, both_int = node.op, isinstance(a, int) and isinstance(b, int)
    if isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) and b == 0:
        raise ToolError(f"{_segment(text, node)} divides by zero, which has no answer. Check the divisor.")
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        if both_int and a and b and _int_digits(a) + _int_digits(b) > MAX_DIGITS + 3:
            raise _too_big(_segment(text, node), _int_digits(a) + _int_digits(b) - 2)
        return a * b
    if isinstance(op, ast.Div):
        if both_int and a % b == 0:
            return a // b  # exact: 6 / 3 is 2, not 2.0
        return a / b
    if isinstance(op, ast.FloorDiv):
        return a // b
    if isinstance(op, ast.Mod):
        return a % b
    return _power(a, b, _segment(text, node))


def _power(a: Number, b: Number, where: str) -> Number:
    if a == 0 and b < 0:
        raise ToolError(f"{where} raises 0 to a negative power, which divides by zero.")
    if isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
        # Digits of a**b are about b * log10|a|; decide before computing anything big.
        if b > 4 * MAX_DIGITS:  # |a| >= 2, so at least b * 0.301 digits: far too many
            raise _too_big(where, _safe_product(b, math.log10(abs(a))))
        digits = b * math.log10(abs(a))
        if digits > MAX_DIGITS + 1:
            raise _too_big(where, digits)
    result = a ** b
    if isinstance(result, complex):
        raise ToolError(f"{where} has no real-number answer (a negative number to a fractional power).")
    return result


def _safe_product(x: int, y: float) -> float | None:
    try:
        return x * y
    except OverflowError:
        return None


def _checked(value: Number, node: ast.AST, text: str) -> Number:
    """The value itself, if it is a finite float or a whole number of at most MAX_DIGITS digits."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolError(f"{_segment(text, node)} is too large: decimal numbers stop near 1.8e308.")
        return value
    if value.bit_length() > (MAX_DIGITS + 1) / _LOG10_2:
        raise _too_big(_segment(text, node), _int_digits(value))
    if (digits := len(str(abs(value)))) > MAX_DIGITS:
        raise _too_big(_segment(text, node), digits)
    return value


def _format(value: Number) -> str:
    """Whole numbers in full; other numbers to 12 significant digits, without an exponent unless huge or tiny.

    >>> _format(0.1 + 0.2), _format(1e20), _format(2.0), _format(1 / 3)
    ('0.3', '100000000000000000000', '2', '0.333333333333')
    """
    if isinstance(value, int):
        return str(value)
    if value == 0:
        return "0"  # also for -0.0
    text = format(value, ".12g")
    if "e" in text and 1e-9 <= abs(value) < 1e21:
        text = format(Decimal(text), "f")
    return text
