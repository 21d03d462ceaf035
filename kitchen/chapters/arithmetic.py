"""Checking a model's multiplication: its rows, its small products, its answer, and whether they agree.

A model asked for `a × b` may write the school method: one row per digit of `b`, a line, and
the total. `check_work` finds in whatever the model wrote (plain text, code blocks, LaTeX arrays):

- the final answer it commits to (`extract_answer`, also used by the chapter 06 sweep);
- the rows it added up: the run of numbers on their own lines just above a rule and a total;
  each is marked right or wrong against the true partial product for its digit;
- every small product it stated as an equation (`4 × 8 = 32`), each checked;
- whether its own rows add up to its own total and answer.

What it does not do: understand prose. It reads numbers where the school layout puts them, and
says plainly when it finds no rows.

>>> extract_answer("So 12 × 34 = 408.")
408
>>> [r.right for r in check_work("  48\\n+360\\n----\\n 408", 12, 34).rows]
[True, True]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# An integer as models write it: 7006652, 7,006,652, 7 006 652, 7\,006\,652 (LaTeX), -12
_GROUP_SEP = r"(?:,|\\,|\u202f|\u2009| )"
NUMBER = re.compile(rf"(?<![\w.])-?\d{{1,3}}(?:{_GROUP_SEP}\d{{3}})+(?!\d)|(?<![\w.])-?\d+(?!\d)")
TIMES = r"(?:×|\\times|\\cdot|\*|x)"
EQUATION = re.compile(rf"(\d[\d,]*)\s*{TIMES}\s*(\d[\d,]*)\s*=\s*(\d[\d,]*)")
# A line holding only a number (a row or a total): an optional "+", "&" or "$", the number, then
# at most a LaTeX line end and a comment in brackets.
NUMBER_LINE = re.compile(r"^\s*[+&$]?\s*(-?\d[\d, ]*(?:\\,\d{3})*)\s*(?:\\\\|&|\$)?\s*"
                         r"(?:\(.*\)|\\text\{.*\}|\\quad.*)?\s*(?:\\\\)?\s*\$?\s*$")
# The end of a text that names a variable about to be assigned: "num2 " in "num2 = 490".
ASSIGNED_NAME = re.compile(r"(?<![\w\\])[A-Za-z_]\w*\s*$")
# What may stand between "=" / "equals" / "is" and the number it states: spaces, markup, a hedge.
ANSWER_GAP = re.compile(r"(?:[\s$*_:\\(\[{~≈]|approximately|about|roughly|around|exactly|equal|to|"
                        r"the|answer|result|product|final|therefore|boxed|text|mathbf|bf)*", re.IGNORECASE)
# Numbers joined by an operator, "301 * 360": its numbers are operands, not an answer.
OPERATION = re.compile(rf"\d[\d,]*(?:\s*(?:{TIMES}|[-+/÷^])\s*\d[\d,]*)+")
RULE_LINE = re.compile(r"^\s*(?:\\hline|[-_=]{3,}|\\midrule)\s*$")


def to_int(text: str) -> int | None:
    digits = re.sub(r"[^\d-]", "", text)
    try:
        return int(digits)
    except ValueError:
        return None


def numbers_in(text: str) -> list[tuple[int, int, int]]:
    """Every integer in `text` as (value, start, end), group separators removed.

    >>> [n for n, _, _ in numbers_in("1,234 times 5678 is 7\\\\,006\\\\,652")]
    [1234, 5678, 7006652]
    """
    out = []
    for m in NUMBER.finditer(text):
        value = to_int(m.group())
        if value is not None:
            out.append((value, m.start(), m.end()))
    return out


def find_answer(text: str, cut_off: bool = False) -> tuple[int, int, int] | None:
    """The final number a reply commits to, as (value, start, end) in `text`, or None.

    Prefers the last `\\boxed{…}`, then the number right after the last "=", "equals", "is"
    (an assignment to a name, as in code's `num2 = 490` or LaTeX's `\\(a = 12\\)`, is not an
    answer), then the last number in the text. A reply that was `cut_off` by the token limit
    before it stated an answer has none: its last number is just where it stopped.

    >>> find_answer("So 2 + 2 = 4.")
    (4, 11, 12)
    >>> find_answer("num1 = 979\\nnum2 = 490\\nSo, 97", cut_off=True) is None
    True
    >>> find_answer("The tool '301 * 360' is not available.") is None   # operands are no answer
    True
    """
    boxed = list(re.finditer(r"\\boxed\{([^}]*)\}", text))
    if boxed:
        found = numbers_in(boxed[-1].group(1))
        if found:
            value, start, end = found[-1]
            return value, boxed[-1].start(1) + start, boxed[-1].start(1) + end
    for marker in reversed(list(re.finditer(r"=|\bequals?\b|\bis\b", text))):
        if marker.group() == "=" and ASSIGNED_NAME.search(text[:marker.start()]):
            continue
        after = numbers_in(text[marker.end():marker.end() + 40])
        if after and not re.match(r"\s*[\d,]+\s*" + TIMES, text[marker.end():]) \
                and ANSWER_GAP.fullmatch(text[marker.end():marker.end() + after[0][1]]):
            value, start, end = after[0]
            return value, marker.end() + start, marker.end() + end
    if cut_off:
        return None
    operands = [m.span() for m in OPERATION.finditer(text)]
    found = [n for n in numbers_in(text) if not any(s <= n[1] < e for s, e in operands)]
    return found[-1] if found else None


def extract_answer(text: str, cut_off: bool = False) -> int | None:
    """The final number a reply commits to, or None (see `find_answer`).

    >>> extract_answer("1234 × 5678 equals 7,000,000,000.")
    7000000000
    >>> extract_answer("The answer is $\\\\boxed{700000}$ (approximately).")
    700000
    >>> extract_answer("no digits here") is None
    True
    """
    found = find_answer(text, cut_off)
    return found[0] if found else None


@dataclass
class Row:
    """One row the model added up, and the row it should have been."""

    value: int
    place: int  # which digit of b it stands for (0 = ones)
    digit: int
    true_value: int  # a × digit × 10^place
    right: bool  # equal to the true row, with or without its trailing zeros
    looks_like: str = ""  # for a wrong row: a product it does equal, if any ("1,234 × 4")
    unshifted: bool = False  # right digits, but written without the zeros of its place


@dataclass
class Product:
    """A small product the model stated, such as `4 × 8 = 32`."""

    left: int
    right_operand: int
    stated: int

    @property
    def right(self) -> bool:
        return self.left * self.right_operand == self.stated


@dataclass
class WorkCheck:
    a: int
    b: int
    answer: int | None = None
    rows: list[Row] = field(default_factory=list)
    total: int | None = None  # the number the model wrote under its rows
    products: list[Product] = field(default_factory=list)

    @property
    def truth(self) -> int:
        return self.a * self.b

    @property
    def answer_right(self) -> bool:
        return self.answer == self.truth

    @property
    def rows_sum(self) -> int | None:
        return sum(r.value for r in self.rows) if self.rows else None

    @property
    def rows_sum_shifted(self) -> int | None:
        """The rows' sum if each is moved to its digit's place (for rows written without zeros)."""
        if not self.rows:
            return None
        return sum(r.value * (1 if r.value % 10 ** r.place == 0 and r.value >= r.true_value // 10
                              else 10 ** r.place) for r in self.rows)

    @property
    def rows_add_up(self) -> bool | None:
        """Do the model's own rows add up to its own total? None when there are no rows."""
        if not self.rows:
            return None
        target = self.total if self.total is not None else self.answer
        return target in (self.rows_sum, self.rows_sum_shifted)

    def summary(self) -> str:
        """The verdict, in plain sentences."""
        lines = [f"Right answer: {self.a:,} × {self.b:,} = {self.truth:,}."]
        if self.answer is None:
            lines.append("The model gave no final number.")
        else:
            lines.append(f"The model's answer: {self.answer:,} "
                         f"({'right' if self.answer_right else 'wrong'}).")
        if self.rows:
            for r in self.rows:
                verdict = "right" if r.right else f"wrong: {self.a:,} × {r.digit * 10 ** r.place:,} = {r.true_value:,}"
                if r.unshifted:
                    verdict = (f"the right digits ({self.a:,} × {r.digit}), but not moved to its place: "
                               f"the row is worth {r.true_value:,}")
                if r.looks_like:
                    verdict += f"; what it wrote is {r.looks_like}"
                lines.append(f"  row for the digit {r.digit} ({10 ** r.place:,}s): wrote {r.value:,}, {verdict}")
            unshifted = sum(r.unshifted for r in self.rows)
            placed = sum(r.right and not r.unshifted for r in self.rows)
            lines.append(f"{placed} of {len(self.rows)} rows are right and in their place"
                         + (f"; {unshifted} more have the right digits without their place's zeros." if unshifted
                            else "."))
            if unshifted and self.total == self.rows_sum != self.rows_sum_shifted:
                lines.append("It added its rows as they stand, without moving each to its place: "
                             "the layout is wrong as well as the digits.")
            target = self.total if self.total is not None else self.answer
            shifted = "" if self.rows_sum_shifted == self.rows_sum else f" ({self.rows_sum_shifted:,} shifted by place)"
            if self.rows_add_up:
                lines.append(f"Its rows add up to {self.rows_sum:,}{shifted}, which matches its total {target:,}.")
            else:
                lines.append(f"Its own rows add up to {self.rows_sum:,}{shifted}, not to its total {target:,}: "
                             "the steps do not lead to the answer.")
        else:
            lines.append("The model wrote no partial-product rows, so there is no working to check "
                         "row by row.")
        if self.products:
            right = sum(p.right for p in self.products)
            lines.append(f"It stated {len(self.products)} small products; {right} are arithmetically right: "
                         + ", ".join(f"{p.left} × {p.right_operand} = {p.stated}{'' if p.right else ' ✗'}"
                                     for p in self.products[:8]))
        return "\n".join(lines)


def find_rows(text: str) -> tuple[list[int], int | None]:
    """The last block of numbers-on-their-own-lines that sits above a rule and a total.

    >>> find_rows("  1234\\nx 5678\\n------\\n  9872\\n 86380\\n------\\n 96252")
    ([9872, 86380], 96252)
    """
    kinds = []
    for line in text.splitlines():
        if RULE_LINE.match(line):
            kinds.append(("rule", None))
        else:
            m = NUMBER_LINE.match(line)
            value = to_int(m.group(1)) if m else None
            kinds.append(("number", value) if value is not None else ("other", None))
    best: tuple[list[int], int | None] = ([], None)
    for i, (kind, value) in enumerate(kinds):
        if kind != "rule" or i + 1 >= len(kinds) or kinds[i + 1][0] != "number":
            continue
        rows, j = [], i - 1
        while j >= 0 and kinds[j][0] == "number":
            rows.insert(0, kinds[j][1])
            j -= 1
        if len(rows) >= 2:
            best = (rows, kinds[i + 1][1])
    return best


def check_work(text: str, a: int, b: int) -> WorkCheck:
    """Find the answer, the rows and the small products in a reply to `a × b`, and check them."""
    check = WorkCheck(a, b, answer=extract_answer(text))
    rows, check.total = find_rows(text)
    digits = [int(d) for d in str(b)[::-1]]
    if rows and len(rows) <= len(digits):
        places = _places(rows, a, digits)
        for value, place in zip(rows, places):
            true_value = a * digits[place] * 10 ** place
            right = value in (true_value, a * digits[place])
            check.rows.append(Row(value, place, digits[place], true_value, right,
                                  "" if right else _looks_like(value, a, b),
                                  unshifted=right and value != true_value))
    else:
        check.total = None
    for m in EQUATION.finditer(text):
        left, right, stated = (to_int(g) for g in m.groups())
        if None not in (left, right, stated) and (left, right) != (a, b) and (right, left) != (a, b):
            check.products.append(Product(left, right, stated))
    return check


def _looks_like(value: int, a: int, b: int) -> str:
    """A one-digit product of either number that equals `value`, in words ("1,234 × 4"), or ""."""
    for n in (a, b):
        for k in range(1, 10):
            for place in range(len(str(b))):
                if n * k * 10 ** place == value:
                    return f"{n:,} × {k * 10 ** place:,}"
    return ""


def _places(rows: list[int], a: int, digits: list[int]) -> list[int]:
    """Which digit each row stands for: ones digit first, or highest first, whichever fits better."""
    n = len(rows)
    up, down = list(range(n)), list(range(len(digits)))[::-1][:n]

    def distance(places: list[int]) -> float:
        total = 0.0
        for value, place in zip(rows, places):
            want = [a * digits[place] * 10 ** place, a * digits[place]]
            total += min(abs(value - w) / max(1, w) for w in want)
        return total

    return up if distance(up) <= distance(down) else down


@dataclass
class Departure:
    """Where a wrong answer leaves the right digits: the first digit that differs."""

    digit_index: int  # 0 = the answer's first digit
    step: int  # index of the token that wrote it, in `Generation.tokens`
    wrote: str
    right_digit: str
    prob_wrote: float
    prob_right: float | None  # None when the right digit was not among the recorded top-k

    def summary(self) -> str:
        right = (f"{self.prob_right:.1%}" if self.prob_right is not None
                 else "below every recorded candidate")
        n = self.digit_index
        kept = "none of its digits" if n == 0 else f"its first {n} digit{'s' if n > 1 else ''}"
        return (f"The answer keeps {kept} right, then departs at step {self.step + 1}: it wrote "
                f"{self.wrote!r} ({self.prob_wrote:.1%}) where the right digit is {self.right_digit!r} "
                f"(probability {right}).")


def departure(generation, right: int) -> Departure | None:
    """The first digit of a reply's answer that differs from `right`, with both probabilities.

    Compares digit strings (group separators ignored) from the answer's first digit. None when
    the reply has no answer or its answer is right. A longer answer whose digits all match the
    right ones departs where the right answer ends.
    """
    found = find_answer(generation.text)
    if found is None or found[0] == right:
        return None
    _, start, end = found
    truth = str(abs(right))
    position, seen = 0, 0
    for step, token in enumerate(generation.tokens):
        for offset, char in enumerate(token.text):
            if start <= position + offset < end and char.isdigit():
                if seen >= len(truth) or char != truth[seen]:
                    want = truth[seen] if seen < len(truth) else "(no more digits)"
                    return Departure(seen, step, char, want, token.prob, _prob_of(token, want))
                seen += 1
        position += len(token.text)
    return None


def _prob_of(token, text: str) -> float | None:
    return next((c.prob for c in token.top if c.text == text), None)
