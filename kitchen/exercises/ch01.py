"""Chapter 01's exercises: how the model sees a number, the rows of long multiplication, and the
first row a live model got wrong.

>>> print(check_digit_tokens(["7", "0", "0", "6", "6", "5", "2"]))
✓ Right (01.digit_tokens): 7 tokens, one per digit: the model writes 7,006,652 one digit at a time, and each digit is a fresh guess.
>>> check_partial_rows(12, 34, [48, 36]).status
'wrong'
"""

from __future__ import annotations

from typing import Any

from kitchen.chapters.arithmetic import Row, check_work
from kitchen.model.tokenizer import offline_tokenizer
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

NUMBER = "7006652"  # 1234 × 5678, the chapter's product


def check_digit_tokens(pieces: Any) -> Feedback:
    """The tokens Qwen's tokenizer cuts "7006652" into, as a list of strings, in order."""
    ex = "01.digit_tokens"
    if blank(pieces):
        return not_done(ex, "`pieces`")
    if not isinstance(pieces, (list, tuple)) or not all(isinstance(p, str) for p in pieces):
        return wrong(ex, f"`pieces` should be a list of strings, one per token; it is {type(pieces).__name__}.",
                     "Write it like ['12', '34'].")
    tok = offline_tokenizer("0.5b")
    truth = [tok.decode([i]) for i in tok.encode(NUMBER)]
    if "".join(pieces) != NUMBER:
        return wrong(ex, f"your pieces join to {''.join(pieces)!r}, not {NUMBER!r}.",
                     "Every character of the number belongs to exactly one token.")
    if list(pieces) == truth:
        return right(ex, f"{len(truth)} tokens, one per digit: the model writes 7,006,652 one digit at a time, "
                         "and each digit is a fresh guess.")
    if len(pieces) == 1:
        return wrong(ex, "the tokenizer does not keep the number whole: the model never sees 7006652 as one symbol.",
                     "Ask the tokenizer: tok.encode('7006652'), then decode each id on its own.")
    longest = max(len(p) for p in pieces)
    return wrong(ex, f"you cut it into {len(pieces)} pieces, the longest {longest} digits long; Qwen's tokenizer "
                     "cuts it differently (some tokenizers, GPT-4's among them, use groups of up to three digits).",
                 "Decode each id of tok.encode('7006652') on its own.")


def check_partial_rows(a: int, b: int, rows: Any) -> Feedback:
    """The rows of `a × b` worked by hand, top row first: the top row multiplies `a` by the ones
    digit of `b`, the next by its tens digit (written with its zero), and so on."""
    ex = "01.partial_rows"
    if blank(rows):
        return not_done(ex, "`rows`")
    if not isinstance(rows, (list, tuple)) or not all(isinstance(r, int) for r in rows):
        return wrong(ex, "`rows` should be a list of whole numbers, top row first.")
    digits = [int(d) for d in str(b)[::-1]]
    if len(rows) != len(digits):
        return wrong(ex, f"{b:,} has {len(digits)} digits, so there are {len(digits)} rows; you wrote {len(rows)}.",
                     "One row per digit of the second number, ones digit first.")
    problems = []
    for i, (value, digit) in enumerate(zip(rows, digits)):
        place = 10 ** i
        if value == a * digit * place:
            continue
        if i and value == a * digit:
            problems.append(f"row {i + 1} (the digit {digit}, worth {digit * place:,}) has the right digits but "
                            f"not its place: it needs {i} zero{'s' if i > 1 else ''} after it. The 1.5B pack in "
                            "this chapter made the same slip")
        else:
            problems.append(f"row {i + 1} (the digit {digit}, worth {digit * place:,}) is not {a:,} × {digit * place:,}")
    if not problems:
        return right(ex, f"{len(rows)} rows, each in its place; they add up to {sum(rows):,} = {a:,} × {b:,}.")
    return wrong(ex, "; ".join(problems) + ".",
                 f"Each row is {a:,} times one digit of {b:,}, then as many zeros as the digit's place "
                 "(none for the ones, one for the tens, …).")


def first_wrong_row(reply_text: str, a: int, b: int) -> tuple[int, Row] | None:
    """(row number from the top, the row) for the first row `check_work` marks wrong in a reply
    to `a × b`; None when every row is right. Raises ValueError when the reply has no rows."""
    work = check_work(reply_text, a, b)
    if not work.rows:
        raise ValueError("no rows")
    return next(((i, r) for i, r in enumerate(work.rows, start=1) if not r.right), None)


def check_first_wrong_row(reply: Any, a: int, b: int, row: Any, should_be: Any = None) -> Feedback:
    """Name the first row the model got wrong in its reply to `a × b` (1 = the top row) and what
    it should have been; `row=0` if every row is right. `reply` is the model's reply or its text."""
    ex = "01.first_wrong_row"
    if blank(reply):
        return not_done(ex, "`mine`")
    reply_text = getattr(reply, "text", reply)
    if blank(row):
        return not_done(ex, "`row`")
    try:
        truth = first_wrong_row(reply_text, a, b)
    except ValueError:
        return wrong(ex, "this reply has no rows of long multiplication, so there is no row to name.",
                     "Ask again as the chapter does: 'Work it out step by step, the way you would on paper.', "
                     "or pick a product with more digits.")
    if truth is None:
        if row == 0:
            return right(ex, "every row of this reply is right; if its answer is wrong, the slip is in the adding.")
        return wrong(ex, f"the checker marks no row wrong in this reply, and you named row {row}.",
                     "Print check_work(reply.text, a, b).summary() and read the rows' verdicts.")
    number, wrong_row = truth
    value, unshifted = wrong_row.true_value, a * wrong_row.digit
    if row != number:
        return wrong(ex, f"row {row} is not the first row the checker marks wrong.",
                     "Print check_work(reply.text, a, b).summary(): the rows are listed from the top.")
    if blank(should_be):
        return not_done(ex, "`should_be`")
    if should_be == value:
        return right(ex, f"row {number} is the first wrong row, and it should have been {value:,}.")
    if should_be == unshifted:
        return right(ex, f"row {number} is the first wrong row; {should_be:,} has the right digits (the full row, "
                         f"with its place's zeros, is {value:,}).")
    return wrong(ex, f"row {number} is the one, but {should_be:,} is not what it should have been.",
                 "Multiply the first number by the digit that row stands for, then add that digit's zeros.")

