"""Text-scanning machinery of the tool-call parser: fences, brackets, JSON values, positions.

It owns the low-level reading every format shares: Markdown fences paired in order, the end of a
balanced bracket (quotes respected), a JSON value decoded at any position without going quadratic,
and whether a failed decode only ran out of text. It knows nothing of tool calls, formats or the
messages written for the model: those are the other modules of `kitchen.harness.parsing`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fence:
    """A Markdown code fence, as `find_fences` pairs them."""

    start: int       # the opening ```
    body_start: int
    body_end: int
    end: int         # just after the closing ```, or the end of the text when it never closes
    lang: str        # the info string, lower case ("json", "tool_call", "" ...)
    closed: bool


FENCE_OPEN = re.compile(r"```[ \t]*(?:([\w+.#-]+)[ \t]*(?:\r?\n|\Z)|\r?\n)?")


def find_fences(text: str) -> list[Fence]:
    """Markdown code fences, paired in order (an info string counts only when it ends its line).

    >>> [(f.lang, f.closed) for f in find_fences("```json\\n{}\\n``` and ```")]
    [('json', True), ('', False)]
    """
    fences: list[Fence] = []
    pos = 0
    while (start := text.find("```", pos)) != -1:
        opener = FENCE_OPEN.match(text, start)
        assert opener is not None  # the pattern always matches at a ```
        lang = (opener.group(1) or "").lower()
        close = text.find("```", opener.end())
        if close == -1:
            fences.append(Fence(start, opener.end(), len(text), len(text), lang, False))
            break
        fences.append(Fence(start, opener.end(), close, close + 3, lang, True))
        pos = close + 3
    return fences


class Finder:
    """Next occurrence of a string at or after a position. Positions asked for only grow, so
    repeated look-ups cost one pass over the text (a plain `find` per opener would be quadratic
    on a text full of openers and no closer)."""

    def __init__(self, text: str, needle: str) -> None:
        self.text, self.needle = text, needle
        self.searched_from, self.found = len(text) + 1, -1

    def next(self, pos: int) -> int:
        """Index of the next occurrence at or after `pos`, or -1."""
        if self.found >= pos or (self.found == -1 and self.searched_from <= pos):
            return self.found
        self.searched_from, self.found = pos, self.text.find(self.needle, pos)
        return self.found


# A string literal runs to its closing quote or, when it has none, to the end of its line: then a
# stray apostrophe in prose does not swallow the rest of the text, and every token consumes what
# the pattern scanned, so a whole search stays linear.
_STRING = r'"(?:[^"\\\n]|\\.)*+"?|\'(?:[^\'\\\n]|\\.)*+\'?'
PAREN_TOKENS = re.compile(_STRING + r"|[()]")
BRACE_TOKENS = re.compile(_STRING + r"|[{}]")


def balanced_end(tokens: re.Pattern[str], text: str, start: int, limit: int) -> int | None:
    """Index just after the bracket matching the one at `start`, quotes respected; None if it
    does not close before `limit`.

    >>> balanced_end(PAREN_TOKENS, 'f(")", (1)) tail', 1, 16)
    11
    """
    depth = 0
    for m in tokens.finditer(text, start, limit):
        token = m.group()
        if token in "({":
            depth += 1
        elif token in ")}":
            depth -= 1
            if depth == 0:
                return m.end()
    return None


def rstrip_end(text: str, start: int, end: int) -> int:
    """End of text[start:end] without its trailing whitespace."""
    return start + len(text[start:end].rstrip())


def skip(text: str, pos: int, chars: str = " \t\r\n") -> int:
    """The first position at or after `pos` that does not hold one of `chars`."""
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def short(text: str, limit: int = 80) -> str:
    """`text` on one line, cut to `limit` characters with "..." (for quoting it in a message)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def where(text: str, start: int, pos: int) -> str:
    """'line L, column C', counted from `start` (the beginning of the call's own text)."""
    before = text[start:pos]
    line = before.count("\n") + 1
    column = pos - start - (before.rfind("\n") + 1) + 1
    return f"line {line}, column {column}"


@dataclass(frozen=True)
class BadJSON:
    """A failed decode, as a value."""

    reason: str    # the decoder's complaint
    pos: int       # where it gave up, in the decoded string
    exact: bool    # False when the decoder gave no position (too deep, a huge number)


_DECODER = json.JSONDecoder()
# Deeper JSON is refused on every Python: 3.11's decoder stops near 1,000 levels (a RecursionError),
# 3.13's goes on, and what comes after a decode (copies, checks) recurses too.
MAX_NESTING = 500


def nested_deeper_than(value: Any, limit: int) -> bool:
    """True when lists and objects in `value` nest more than `limit` levels (counted without recursion).

    >>> nested_deeper_than([[1]], 2), nested_deeper_than([[1]], 1), nested_deeper_than(1, 0)
    (False, True, False)
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def _raw_decode(text: str) -> tuple[Any, int] | BadJSON:
    """`raw_decode` from the start of `text`, reporting failure as a value instead of raising."""
    try:
        decoded = _DECODER.raw_decode(text)
        if nested_deeper_than(decoded[0], MAX_NESTING):
            return BadJSON("it is nested too deeply", 0, False)
        return decoded
    except json.JSONDecodeError as err:
        return BadJSON(err.msg, err.pos, True)
    except RecursionError:
        return BadJSON("it is nested too deeply", 0, False)
    except ValueError as err:  # e.g. an integer with more digits than Python agrees to convert
        return BadJSON(str(err), 0, False)


def decode(text: str, pos: int) -> tuple[Any, int] | BadJSON:
    """Decode the JSON value at `pos`; positions in the answer are positions in `text`.

    The decoder works on a window that grows only while the value might go on past it. Decoding
    the whole text instead would be quadratic on a text full of braces: a `JSONDecodeError` counts
    the lines of everything before the point where it failed.

    >>> decode('call: {"a": [1, 2]} done', 6)
    ({'a': [1, 2]}, 19)
    """
    size = 256
    while True:
        window = text[pos:pos + size]
        last = pos + size >= len(text)
        result = _raw_decode(window)
        if isinstance(result, BadJSON):
            # A failure near the window's end may only mean the window cut the value (a number,
            # an escape sequence): look again with more text.
            near_end = result.pos >= len(window) - 16
            if not last and (near_end or incomplete(result, window, len(window))):
                size *= 4
                continue
            return BadJSON(result.reason, pos + result.pos, result.exact)
        if not last and result[1] == len(window):  # a number may go on past the window
            size *= 4
            continue
        return result[0], pos + result[1]


_PARTIAL_TOKEN = re.compile(
    r"-?\d*\.?\d*(?:[eE][-+]?\d*)?|\\?u[0-9a-fA-F]{0,4}(?:\\u?[0-9a-fA-F]{0,3})?")


def incomplete(bad: BadJSON, text: str, stop: int) -> bool:
    """Did the JSON fail only because the text ended (at `stop`) before the value did?"""
    if not bad.exact:
        return False
    if bad.reason.startswith("Unterminated string"):
        return True
    if stop - bad.pos > 16:
        return False
    rest = text[bad.pos:stop].strip()
    return (rest == "" or any(word.startswith(rest) for word in ("true", "false", "null"))
            or _PARTIAL_TOKEN.fullmatch(rest) is not None)
