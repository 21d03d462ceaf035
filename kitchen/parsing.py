"""Find the tool calls in a model's text: the one tool-call parser of the series.

A model never calls anything. It writes text, and the harness has to find the calls in that
text. Qwen2.5 was trained to write ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``,
but small models drift: the offline 0.5B pack writes the JSON object bare and the 1.5B pack puts
it in a ```json fence. So `parse_tool_calls` reads the formats models really write:

- ``qwen``: ``<tool_call>{"name": "f", "arguments": {...}}</tool_call>``, Qwen's native blocks;
- ``json``: the same object without the tags, bare in the text or in a ```json (or plain ```) fence;
- ``tool_call_fence``: the object in a ```tool_call fence (the prompt-based protocol of chapter 04);
- ``python``: ``calculator(expression="2 + 2")``, for known tool names only;
- ``call_tag``: ``<call calculator>2 + 2</call>``, for known tool names only.

It returns the calls in the order they appear, every failed attempt as a `ParseError` whose
message is written for the model to read and fix, and the prose left once both are taken out.

>>> r = parse_tool_calls('Let me check.\\n<tool_call>\\n{"name": "f", "arguments": {"x": 1}}\\n</tool_call>')
>>> r.calls[0].name, r.calls[0].arguments, r.prose
('f', {'x': 1}, 'Let me check.')

What it deliberately does not do:

- validate arguments against the tools' schemas: the harness does that with jsonschema. The
  parser does not judge tool names either: an unknown tool is still returned as a call, and the
  harness answers it. Names are used only where a format needs them to find calls at all
  (``python``, ``call_tag``);
- run anything: Python-style calls are read with `ast` and `ast.literal_eval`, never `eval`;
- raise: any string gives a `ParseResult`, whether it is hostile, huge, deeply nested or cut off.
  (Passing an unknown format name, or a `tools` entry that is not a tool, is a programming error
  and does raise.)
"""

from __future__ import annotations

import ast
import copy
import json
import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .schemas import as_schema

FORMATS = ("qwen", "json", "tool_call_fence", "python", "call_tag")
NATIVE_FORMATS = ("qwen", "json")

ERROR_KINDS = (
    "malformed_json",      # the text of a call is not valid JSON
    "truncated",           # the call stops before it is complete (generation cut off)
    "missing_name",        # no tool name, or a name that is not a string
    "bad_arguments",       # arguments that are not a JSON object (or a string holding one)
    "not_literal",         # a Python-style argument that is code, not a plain value
    "bad_call",            # a Python-style call that cannot be read as one
    "unknown_parameter",   # a Python-style keyword the tool does not have
    "too_many_arguments",  # more positional values than the tool has parameters
    "internal_error",      # a bug in this module (never expected; the parser stays up anyway)
)

# When two formats claim the same stretch of text, the one listed first here wins (tags over the
# bare JSON inside them), except that a call wins over a failed attempt and over anything that lies
# inside it (see `_merge`).
_PRIORITY = ("qwen", "tool_call_fence", "json", "call_tag", "python")


@dataclass
class ToolCall:
    """One call found in the text."""

    name: str
    arguments: dict
    format: str
    raw: str
    start: int
    end: int

    def to_message_call(self) -> dict[str, Any]:
        """The call as an item of an assistant message's ``tool_calls`` (what Qwen's template accepts).

        >>> parse_tool_calls('{"name": "f", "arguments": {"x": 1}}').calls[0].to_message_call()
        {'type': 'function', 'function': {'name': 'f', 'arguments': {'x': 1}}}
        """
        return {"type": "function", "function": {"name": self.name, "arguments": copy.deepcopy(self.arguments)}}


@dataclass
class ParseError:
    """A failed attempt at a call, with a message the model can act on."""

    kind: str
    message: str
    raw: str
    format: str
    start: int
    end: int


@dataclass
class ParseResult:
    """Everything `parse_tool_calls` found in one text."""

    calls: list[ToolCall]
    errors: list[ParseError]
    prose: str

    @property
    def found(self) -> bool:
        """True when the model tried to call a tool (a call or a failed attempt was found)."""
        return bool(self.calls or self.errors)


Hit = ToolCall | ParseError


# --------------------------------------------------------------------------- shared pieces

@dataclass(frozen=True)
class _Tool:
    name: str
    params: tuple[str, ...]    # in the schema's `properties` order: how positional values map
    required: tuple[str, ...]


@dataclass(frozen=True)
class _Fence:
    start: int       # the opening ```
    body_start: int
    body_end: int
    end: int         # just after the closing ```, or the end of the text when it never closes
    lang: str        # the info string, lower case ("json", "tool_call", "" ...)
    closed: bool


@dataclass
class _Context:
    text: str
    tools: dict[str, _Tool]
    fences: list[_Fence]
    stop: int        # end of the text without its trailing whitespace


@dataclass(frozen=True)
class _Verdict:
    """What a piece of text turned out to be: kind "call" (name, arguments) or an error kind (message)."""

    kind: str
    name: str = ""
    arguments: dict | None = None
    message: str = ""


@dataclass(frozen=True)
class _BadJSON:
    reason: str    # the decoder's complaint
    pos: int       # where it gave up, in the decoded string
    exact: bool    # False when the decoder gave no position (too deep, a huge number)


def _tool_table(tools: Sequence | None) -> dict[str, _Tool]:
    table: dict[str, _Tool] = {}
    for tool in tools or ():
        function = as_schema(tool).get("function") or {}
        name = function.get("name")
        if not isinstance(name, str):
            continue
        parameters = function.get("parameters")
        parameters = parameters if isinstance(parameters, dict) else {}
        properties = parameters.get("properties")
        params = tuple(p for p in properties if isinstance(p, str)) if isinstance(properties, dict) else ()
        required = parameters.get("required")
        required = tuple(r for r in required if r in params) if isinstance(required, list) else ()
        table[name] = _Tool(name, params, required)
    return table


_FENCE_OPEN = re.compile(r"```[ \t]*(?:([\w+.#-]+)[ \t]*(?:\r?\n|\Z)|\r?\n)?")


def _find_fences(text: str) -> list[_Fence]:
    """Markdown code fences, paired in order (an info string counts only when it ends its line)."""
    fences: list[_Fence] = []
    pos = 0
    while (start := text.find("```", pos)) != -1:
        opener = _FENCE_OPEN.match(text, start)
        assert opener is not None  # the pattern always matches at a ```
        lang = (opener.group(1) or "").lower()
        close = text.find("```", opener.end())
        if close == -1:
            fences.append(_Fence(start, opener.end(), len(text), len(text), lang, False))
            break
        fences.append(_Fence(start, opener.end(), close, close + 3, lang, True))
        pos = close + 3
    return fences


class _Finder:
    """Next occurrence of a string at or after a position. Positions asked for only grow, so
    repeated look-ups cost one pass over the text (a plain `find` per opener would be quadratic
    on a text full of openers and no closer)."""

    def __init__(self, text: str, needle: str):
        self.text, self.needle = text, needle
        self.searched_from, self.found = len(text) + 1, -1

    def next(self, pos: int) -> int:
        if self.found >= pos or (self.found == -1 and self.searched_from <= pos):
            return self.found
        self.searched_from, self.found = pos, self.text.find(self.needle, pos)
        return self.found


# A string literal runs to its closing quote or, when it has none, to the end of its line: then a
# stray apostrophe in prose does not swallow the rest of the text, and every token consumes what
# the pattern scanned, so a whole search stays linear.
_STRING = r'"(?:[^"\\\n]|\\.)*+"?|\'(?:[^\'\\\n]|\\.)*+\'?'
_PAREN_TOKENS = re.compile(_STRING + r"|[()]")
_BRACE_TOKENS = re.compile(_STRING + r"|[{}]")


def _balanced_end(tokens: re.Pattern, text: str, start: int, limit: int) -> int | None:
    """Index just after the bracket matching the one at `start`, quotes respected; None if it
    does not close before `limit`."""
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


def _rstrip_end(text: str, start: int, end: int) -> int:
    """End of text[start:end] without its trailing whitespace."""
    return start + len(text[start:end].rstrip())


def _skip(text: str, pos: int, chars: str = " \t\r\n") -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _where(text: str, start: int, pos: int) -> str:
    """'line L, column C', counted from `start` (the beginning of the call's own text)."""
    before = text[start:pos]
    line = before.count("\n") + 1
    column = pos - start - (before.rfind("\n") + 1) + 1
    return f"line {line}, column {column}"


_DECODER = json.JSONDecoder()


def _raw_decode(text: str) -> tuple[Any, int] | _BadJSON:
    """`raw_decode` from the start of `text`, reporting failure as a value instead of raising."""
    try:
        return _DECODER.raw_decode(text)
    except json.JSONDecodeError as err:
        return _BadJSON(err.msg, err.pos, True)
    except RecursionError:
        return _BadJSON("it is nested too deeply", 0, False)
    except ValueError as err:  # e.g. an integer with more digits than Python agrees to convert
        return _BadJSON(str(err), 0, False)


def _decode(text: str, pos: int) -> tuple[Any, int] | _BadJSON:
    """Decode the JSON value at `pos`; positions in the answer are positions in `text`.

    The decoder works on a window that grows only while the value might go on past it. Decoding
    the whole text instead would be quadratic on a text full of braces: a `JSONDecodeError` counts
    the lines of everything before the point where it failed.
    """
    size = 256
    while True:
        window = text[pos:pos + size]
        last = pos + size >= len(text)
        result = _raw_decode(window)
        if isinstance(result, _BadJSON):
            # A failure near the window's end may only mean the window cut the value (a number,
            # an escape sequence): look again with more text.
            if not last and (result.pos >= len(window) - 16 or _incomplete(result, window, len(window))):
                size *= 4
                continue
            return _BadJSON(result.reason, pos + result.pos, result.exact)
        if not last and result[1] == len(window):  # a number may go on past the window
            size *= 4
            continue
        return result[0], pos + result[1]


_PARTIAL_TOKEN = re.compile(r"-?\d*\.?\d*(?:[eE][-+]?\d*)?|\\?u[0-9a-fA-F]{0,4}(?:\\u?[0-9a-fA-F]{0,3})?")


def _incomplete(bad: _BadJSON, text: str, stop: int) -> bool:
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


_EXPECTED = {
    "qwen": '<tool_call>\n{"name": "<tool name>", "arguments": {<arguments>}}\n</tool_call>',
    "json": '{"name": "<tool name>", "arguments": {<arguments>}}',
    "tool_call_fence": '```tool_call\n{"name": "<tool name>", "arguments": {<arguments>}}\n```',
}


def _json_failure(bad: _BadJSON, text: str, start: int, incomplete: bool, fmt: str) -> _Verdict:
    expected = _EXPECTED.get(fmt, _EXPECTED["json"])
    reason = bad.reason.removesuffix(" at")  # the decoder's messages end in " at" before a position
    if incomplete:
        left_open = "a string" if reason.startswith(("Unterminated string", "Invalid control")) else "a brace"
        return _Verdict("truncated", message=(
            f"The tool call stops before its JSON is complete: {left_open} is never closed. "
            f"Write the whole call, closing every brace and quote: {expected}"))
    where = f" at {_where(text, start, bad.pos)} of the call" if bad.exact else ""
    return _Verdict("malformed_json", message=(
        f"The tool call is not valid JSON: {reason}{where}. Write it as {expected}, "
        f"with double quotes around every key and every string."))


def _arguments(value: Any, name: str) -> dict | str:
    """The arguments as a dict, or the message saying why they are not one."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, str):
        decoded = _decode(value, _skip(value, 0))
        if isinstance(decoded, _BadJSON) or value[decoded[1]:].strip():
            return (f'The "arguments" of the call to {name!r} are a string that is not valid JSON. '
                    f'Give them as a JSON object, e.g. "arguments": {{"expression": "2 + 2"}}.')
        value = decoded[0]
    if isinstance(value, dict):
        return value
    kind = {list: "a list", str: "a string", bool: "true/false", int: "a number", float: "a number"}
    return (f'The "arguments" of the call to {name!r} must be a JSON object that maps parameter '
            f'names to values, e.g. {{"expression": "2 + 2"}}, not {kind.get(type(value), "that")}.')


def _looks_like_schema(obj: dict) -> bool:
    """A tool description echoed back (name, description, parameters schema), not a call."""
    params = obj.get("parameters")
    return "description" in obj or (isinstance(params, dict) and "properties" in params and "type" in params)


def _read_call_object(obj: Any, *, strict: bool, tools: dict[str, _Tool]) -> _Verdict | None:
    """Interpret a decoded JSON object. `strict`: it sits where only a call belongs (tags, a
    ```tool_call fence), so anything is an attempt; otherwise an object that does not look like a
    call is just JSON in the prose (None)."""
    if not isinstance(obj, dict):
        return _Verdict("missing_name", message=_NO_NAME) if strict else None
    inner = obj
    if isinstance(obj.get("function"), dict) and obj.get("type", "function") == "function":
        inner = obj["function"]  # the OpenAI wrapper {"type": "function", "function": {...}}
    has_arguments = "arguments" in inner or ("parameters" in inner and not _looks_like_schema(inner))
    name = inner.get("name")
    if not strict:
        if "name" not in inner:
            return None
        if not has_arguments:
            # {"name": "<a known tool>"} alone: a call of a tool that needs no arguments
            if isinstance(name, str) and name.strip() in tools and len(inner) == 1:
                return _Verdict("call", name.strip(), {})
            return None
    if not isinstance(name, str) or not name.strip():
        return _Verdict("missing_name", message=_NO_NAME)
    name = name.strip()
    arguments = _arguments(inner["arguments"] if "arguments" in inner else inner.get("parameters"), name)
    if isinstance(arguments, str):
        return _Verdict("bad_arguments", name, message=arguments)
    return _Verdict("call", name, arguments)


_NO_NAME = ('The tool call has no "name", or its name is not a string. Write the tool\'s name as a '
            'string: {"name": "<tool name>", "arguments": {<arguments>}}.')


def _make_hit(ctx: _Context, fmt: str, verdict: _Verdict, start: int, end: int) -> Hit:
    raw = ctx.text[start:end]
    if verdict.kind == "call":
        return ToolCall(verdict.name, verdict.arguments or {}, fmt, raw, start, end)
    return ParseError(verdict.kind, verdict.message, raw, fmt, start, end)


def _parse_block(ctx: _Context, fmt: str, start: int, body_start: int, body_end: int, end: int,
                 closed: bool) -> list[Hit]:
    """The body of a block that holds nothing but a call: ``<tool_call>`` tags or a ```tool_call fence.

    Usually one JSON object. Several objects in one block give one call each; the block's own
    text (tags, fence, stray characters after the last object) belongs to the first and last.
    """
    body = ctx.text[body_start:body_end]
    pos = _skip(body, 0)
    if body.startswith("```", pos):  # a fenced object inside the tags
        opener = _FENCE_OPEN.match(body, pos)
        pos = _skip(body, opener.end() if opener else pos + 3)
    stop = len(body.rstrip().removesuffix("```").rstrip()) if pos < len(body) else pos
    expected = _EXPECTED[fmt]
    if pos >= stop:
        verdict = (_Verdict("malformed_json", message=f"The tool call is empty. Write it as {expected}")
                   if closed else
                   _Verdict("truncated", message=f"The tool call stops right after it opens. Write it as {expected}"))
        return [_make_hit(ctx, fmt, verdict, start, end)]
    if body[pos] != "{":
        verdict = _Verdict("malformed_json", message=(
            f"The tool call must hold a JSON object, but it starts with {_short(body[pos:], 30)!r}. "
            f"Write it as {expected}"))
        return [_make_hit(ctx, fmt, verdict, start, end)]

    items: list[tuple[int, int, _Verdict]] = []
    while True:
        decoded = _decode(body, pos)
        if isinstance(decoded, _BadJSON):
            incomplete = _incomplete(decoded, body, stop)
            items.append((pos, stop, _json_failure(decoded, body, pos, incomplete, fmt)))
            break
        obj, after = decoded
        verdict = _read_call_object(obj, strict=True, tools=ctx.tools)
        assert verdict is not None  # strict mode always gives a verdict
        items.append((pos, after, verdict))
        pos = _skip(body, after, " \t\r\n,")
        if pos >= stop or body[pos] != "{":
            break
    hits = []
    for n, (item_start, item_end, verdict) in enumerate(items):
        hit_start = start if n == 0 else body_start + item_start
        hit_end = end if n == len(items) - 1 else body_start + item_end
        hits.append(_make_hit(ctx, fmt, verdict, hit_start, hit_end))
    return hits


# --------------------------------------------------------------------------- the formats

_QWEN_OPEN, _QWEN_CLOSE = "<tool_call>", "</tool_call>"


def _scan_qwen(ctx: _Context) -> list[Hit]:
    """Qwen's native ``<tool_call>`` blocks. An unclosed last block (generation stopped at the
    stop string, or ran out of tokens) still counts when its JSON is complete.

    >>> parse_tool_calls('<tool_call>{"name": "f", "arguments": {}}</tool_call>').calls[0].name
    'f'
    >>> parse_tool_calls('<tool_call>\\n{"name": "f", "arguments": {"x": 1}}').calls[0].arguments
    {'x': 1}
    >>> parse_tool_calls('<tool_call>\\n{"name": "f", "argu').errors[0].kind
    'truncated'
    """
    text, hits, pos = ctx.text, [], 0
    closes = _Finder(text, _QWEN_CLOSE)
    while (start := text.find(_QWEN_OPEN, pos)) != -1:
        body_start = start + len(_QWEN_OPEN)
        # Look for the closing tag after the object, so that a string value holding "</tool_call>"
        # does not end the block early.
        search_from, first, cut_off = body_start, _skip(text, body_start), False
        if text.startswith("{", first):
            decoded = _decode(text, first)
            if not isinstance(decoded, _BadJSON):
                search_from = decoded[1]
            else:  # open until the end of the text (a string never closed): tags after it are inside
                cut_off = _incomplete(decoded, text, ctx.stop)
        close, reopen = (-1, -1) if cut_off else (closes.next(search_from), text.find(_QWEN_OPEN, search_from))
        if close != -1 and (reopen == -1 or close < reopen):
            body_end, end, closed = close, close + len(_QWEN_CLOSE), True
        else:
            body_end = reopen if reopen != -1 else len(text)
            end, closed = _rstrip_end(text, body_start, body_end), False
        hits += _parse_block(ctx, "qwen", start, body_start, body_end, end, closed)
        pos = end if closed else body_end
    return hits


_TOOL_CALL_LANGS = ("tool_call", "tool_calls", "tool-call", "toolcall")


def _scan_tool_call_fence(ctx: _Context) -> list[Hit]:
    """A ```tool_call fence holding the call's JSON (chapter 04's prompt-based protocol).

    >>> parse_tool_calls('```tool_call\\n{"name": "f", "arguments": {}}\\n```', ["tool_call_fence"]).calls[0].name
    'f'
    """
    hits: list[Hit] = []
    for fence in ctx.fences:
        if fence.lang in _TOOL_CALL_LANGS:
            end = fence.end if fence.closed else _rstrip_end(ctx.text, fence.start, fence.body_end)
            hits += _parse_block(ctx, "tool_call_fence", fence.start, fence.body_start, fence.body_end,
                                 end, fence.closed)
    return hits


_JSON_LANGS = ("", "json", "json5", "jsonc")
_OBJECT_START = re.compile(r"""\{(?=\s*["'}])""")  # a brace that may open an object (or a call attempt)
_CALL_START = re.compile(r"""\{\s*(?:["'](?:name|function)["']\s*:|"type"\s*:\s*"function")""")


def _json_attempt(ctx: _Context, text: str, offset: int, pos: int, stop: int, bad: _BadJSON) -> Hit:
    """A failed decode at `pos` of `text` (which starts at `offset` of the whole text)."""
    incomplete = _incomplete(bad, text, stop)
    end = None if incomplete else _balanced_end(_BRACE_TOKENS, text, pos, stop)
    verdict = _json_failure(bad, text, pos, incomplete, "json")
    return _make_hit(ctx, "json", verdict, offset + pos, offset + (end or stop))


def _scan_json(ctx: _Context) -> list[Hit]:
    """Call objects without tags: bare in the text, or in a ```json (or plain ```) fence.

    Every ``{`` that may open an object is tried with `json.JSONDecoder.raw_decode`; an object counts only if it has a
    string "name" and "arguments" (or "parameters"), directly or in the OpenAI wrapper. Other JSON
    is left in the prose.

    >>> parse_tool_calls('{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}').calls[0].format
    'json'
    >>> parse_tool_calls('The config is {"debug": true}.').found
    False
    """
    text, hits = ctx.text, []
    # A fenced object that is cut off or broken: the fence, not the end of the text, bounds it.
    for fence in ctx.fences:
        if fence.lang not in _JSON_LANGS:
            continue
        body = text[fence.body_start:fence.body_end]
        pos = _skip(body, 0)
        if pos < len(body) and body[pos] == "{":
            decoded = _decode(body, pos)
            if isinstance(decoded, _BadJSON):
                stop = len(body.rstrip())
                if _CALL_START.match(body, pos) or _incomplete(decoded, body, stop):
                    hits.append(_json_attempt(ctx, body, fence.body_start, pos, stop, decoded))
    # Bare objects everywhere (a complete fenced object is found here too), stepping over the
    # fenced attempts above so that one broken fence cannot swallow the text after it.
    fenced, next_fenced = list(hits), 0
    pos = 0
    while (found := _OBJECT_START.search(text, pos)) is not None:
        start = found.start()
        while next_fenced < len(fenced) and fenced[next_fenced].end <= start:
            next_fenced += 1
        if next_fenced < len(fenced) and fenced[next_fenced].start <= start:
            pos = fenced[next_fenced].end
            continue
        decoded = _decode(text, start)
        if isinstance(decoded, _BadJSON):
            if _CALL_START.match(text, start):
                hit = _json_attempt(ctx, text, 0, start, ctx.stop, decoded)
                hits.append(hit)
                pos = hit.end
            elif not decoded.exact:  # too deep to decode: skip the whole structure, not one brace at a time
                pos = _balanced_end(_BRACE_TOKENS, text, start, len(text)) or len(text)
            else:
                pos = start + 1
            continue
        obj, end = decoded
        verdict = _read_call_object(obj, strict=False, tools=ctx.tools)
        if verdict is None:
            pos = start + 1  # not a call, but a call may sit inside it ({"tool_calls": [...]})
        else:
            hits.append(_make_hit(ctx, "json", verdict, start, end))
            pos = end
    return hits


_DEFINITION_BEFORE = re.compile(r"(?:^|\W)(?:def|class)\s+\Z")


def _scan_python(ctx: _Context) -> list[Hit]:
    """Python-style calls of known tools, read with `ast`: literal values only, nothing is run.

    >>> def calculator(expression: str) -> str:
    ...     '''Compute.
    ...
    ...     Args:
    ...         expression: What to compute.
    ...     '''
    >>> parse_tool_calls('calculator("2 + 2")', ["python"], tools=[calculator]).calls[0].arguments
    {'expression': '2 + 2'}
    >>> parse_tool_calls('calculator(open("x").read())', ["python"], tools=[calculator]).errors[0].kind
    'not_literal'
    """
    names = sorted((n for n in ctx.tools if n.isidentifier()), key=len, reverse=True)
    if not names:
        return []
    text, hits, pos = ctx.text, [], 0
    # A tool name right after a letter, digit or dot is part of another name or an attribute.
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\(")
    while (m := pattern.search(text, pos)) is not None:
        start, name = m.start(), m.group(1)
        if _DEFINITION_BEFORE.search(text, max(0, start - 16), start):
            pos = m.end()
            continue
        end = _balanced_end(_PAREN_TOKENS, text, m.end() - 1, len(text))
        if end is None:
            verdict = _Verdict("truncated", name, message=(
                f"The call {_short(text[start:ctx.stop])} is not closed. Write the whole call and end "
                f"it with ')', e.g. {_python_example(ctx.tools[name])}."))
            hits.append(_make_hit(ctx, "python", verdict, start, max(ctx.stop, m.end())))
            break  # this attempt runs to the end of the text
        hits.append(_make_hit(ctx, "python", _read_python_call(text[start:end], ctx.tools[name]), start, end))
        pos = end
    return hits


def _python_example(tool: _Tool) -> str:
    if not tool.params:
        return f"{tool.name}()"
    return f'{tool.name}({tool.params[0]}="...")'


def _literal(node: ast.expr) -> tuple[bool, Any]:
    """(True, value) for a plain JSON-like literal; (False, None) for anything else. Never runs code."""
    try:
        value = ast.literal_eval(node)
    except Exception:
        return False, None
    return _jsonable(value)


def _jsonable(value: Any) -> tuple[bool, Any]:
    if value is None or isinstance(value, (str, bool, int, float)):
        return True, value
    if isinstance(value, (list, tuple)):
        items = [_jsonable(v) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        items = {k: _jsonable(v) for k, v in value.items()}
        return all(ok for ok, _ in items.values()), {k: v for k, (_, v) in items.items()}
    return False, None  # bytes, sets, complex numbers: no JSON equivalent


def _read_python_call(source: str, tool: _Tool) -> _Verdict:
    """`source` is ``name(...)`` with balanced parentheses."""
    example = _python_example(tool)
    try:
        tree = ast.parse(source, mode="eval")
    except Exception as err:  # SyntaxError, and MemoryError or RecursionError on absurd nesting
        reason = getattr(err, "msg", None) or type(err).__name__
        return _Verdict("bad_call", tool.name, message=(
            f"{_short(source)} is not a valid Python call ({reason}). Write it like {example}, "
            f"with plain values."))
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return _Verdict("bad_call", tool.name, message=f"{_short(source)} is not a plain call. Write it like {example}.")

    nodes = list(call.args) + [k.value for k in call.keywords]
    for node in nodes:
        if isinstance(node, ast.Starred) or not _literal(node)[0]:
            segment = ast.get_source_segment(source, node) or "?"
            return _Verdict("not_literal", tool.name, message=(
                f"The call was not run: its argument `{_short(segment, 60)}` is not a plain value. "
                f"The harness never evaluates code; write each value itself (a string in quotes, a "
                f"number, a list, a dict, True, False or None), e.g. {example}."))
    if any(k.arg is None for k in call.keywords):
        return _Verdict("not_literal", tool.name, message=(
            f"The call was not run: `**` arguments are not allowed. Name each argument, e.g. {example}."))

    if len(call.args) > len(tool.params):
        takes = f"{len(tool.params)} argument{'s' * (len(tool.params) != 1)}"
        if tool.params:
            takes += f" ({', '.join(tool.params)})"
        return _Verdict("too_many_arguments", tool.name, message=(
            f"{tool.name} takes {takes}, but {len(call.args)} were given. Write it like {example}."))
    arguments = {param: _literal(node)[1] for param, node in zip(tool.params, call.args)}
    for keyword in call.keywords:
        assert keyword.arg is not None
        if keyword.arg not in tool.params:
            known = ", ".join(tool.params) or "none"
            return _Verdict("unknown_parameter", tool.name, message=(
                f"{tool.name} has no parameter {keyword.arg!r}; its parameters are: {known}."))
        if keyword.arg in arguments:
            return _Verdict("bad_call", tool.name, message=(
                f"{tool.name} got two values for {keyword.arg!r}. Give each argument once, e.g. {example}."))
        arguments[keyword.arg] = _literal(keyword.value)[1]
    return _Verdict("call", tool.name, arguments)


_CALL_OPEN = re.compile(r"""<call(?:\s+(?:name\s*=\s*)?(["']?)([^\s<>"'/]+)\1)?\s*>""")
_CALL_CLOSE = "</call>"


def _scan_call_tag(ctx: _Context) -> list[Hit]:
    """The simplified ``<call name>body</call>`` form.

    A body that is a JSON object is the arguments; any other body is the value of the tool's one
    required parameter (or its first parameter).

    >>> tools = [{"type": "function", "function": {"name": "calculator", "description": "",
    ...           "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}]
    >>> parse_tool_calls('<call calculator>1234 * 5678</call>', ["call_tag"], tools).calls[0].arguments
    {'expression': '1234 * 5678'}
    """
    if not ctx.tools:
        return []
    text, hits, pos = ctx.text, [], 0
    openers = list(_CALL_OPEN.finditer(text))
    closes = _Finder(text, _CALL_CLOSE)
    for k, opener in enumerate(openers):
        if opener.start() < pos:  # inside the previous call
            continue
        start, body_start, name = opener.start(), opener.end(), opener.group(2)
        example = f"<call {name or next(iter(ctx.tools))}>...</call>"
        reopen = openers[k + 1].start() if k + 1 < len(openers) else -1
        close = closes.next(body_start)
        if close != -1 and (reopen == -1 or close < reopen):
            end = close + len(_CALL_CLOSE)
            verdict = (_call_tag_verdict(name, text[body_start:close], ctx.tools) if name else
                       _Verdict("missing_name", message=f"A <call> tag needs the tool's name, e.g. {example}."))
        else:
            end = _rstrip_end(text, start, reopen if reopen != -1 else len(text))
            verdict = _Verdict("truncated", name or "", message=(
                f"The call to {name or 'a tool'} is not closed. End it with </call>, e.g. {example}."))
        hits.append(_make_hit(ctx, "call_tag", verdict, start, end))
        pos = end
    return hits


def _call_tag_verdict(name: str, body: str, tools: dict[str, _Tool]) -> _Verdict:
    value = body.strip()
    if value.startswith("{"):
        decoded = _decode(value, 0)
        if not isinstance(decoded, _BadJSON) and decoded[1] == len(value) and isinstance(decoded[0], dict):
            return _Verdict("call", name, decoded[0])
        if value.endswith("}"):
            return _Verdict("malformed_json", name, message=(
                f"The body of <call {name}> looks like a JSON object but is not valid JSON. Write "
                f'either plain text, <call {name}>1234 * 5678</call>, or a JSON object with double '
                f'quotes, <call {name}>{{"expression": "1234 * 5678"}}</call>.'))
    if len(value) >= 2 and value[0] == value[-1] == '"':  # a quoted string: drop the quotes
        decoded = _decode(value, 0)
        if not isinstance(decoded, _BadJSON) and decoded[1] == len(value) and isinstance(decoded[0], str):
            value = decoded[0]
    tool = tools.get(name)
    if tool is None or not value:
        return _Verdict("call", name, {})  # an unknown tool: no schema to place the text, the harness answers
    target = tool.required[0] if len(tool.required) == 1 else (tool.params[0] if tool.params else None)
    if target is None:
        return _Verdict("too_many_arguments", name, message=(
            f"{name} takes no arguments, but the tag holds text. Write <call {name}></call>."))
    return _Verdict("call", name, {target: value})


_SCANNERS: dict[str, Callable[[_Context], list[Hit]]] = {
    "qwen": _scan_qwen,
    "json": _scan_json,
    "tool_call_fence": _scan_tool_call_fence,
    "python": _scan_python,
    "call_tag": _scan_call_tag,
}


# --------------------------------------------------------------------------- putting it together

def _non_overlapping(hits: list[Hit]) -> list[Hit]:
    """Sorted by start; of overlapping hits the earliest (then the first listed) is kept."""
    kept: list[Hit] = []
    last_end = -1
    for hit in sorted(hits, key=lambda h: h.start):
        if hit.start >= last_end and hit.end > hit.start:
            kept.append(hit)
            last_end = hit.end
    return kept


def _merge(accepted: list[Hit], new: list[Hit]) -> list[Hit]:
    """Add the hits of a lower-priority format to those accepted so far (both sorted, free of overlaps).

    A new hit that overlaps accepted ones is dropped (priority), except that it replaces them

    - when it holds them whole and they are failed attempts: a "<tool_call>" inside the string
      value of a cut-off JSON call is part of that attempt's text;
    - when it is a call and they are only failed attempts, or it holds them whole.
    """
    out: list[Hit] = []
    i = 0
    for hit in new:
        while i < len(accepted) and accepted[i].end <= hit.start:
            out.append(accepted[i])
            i += 1
        k = i
        while k < len(accepted) and accepted[k].start < hit.end:
            k += 1
        if k == i:
            out.append(hit)
        else:
            only_errors = all(isinstance(h, ParseError) for h in accepted[i:k])
            holds_them = hit.start <= accepted[i].start and accepted[k - 1].end <= hit.end
            if (holds_them or only_errors) if isinstance(hit, ToolCall) else (holds_them and only_errors):
                out.append(hit)
                i = k
    out.extend(accepted[i:])
    return out


def _removed_spans(text: str, hits: list[Hit], fences: list[_Fence]) -> list[tuple[int, int]]:
    """The spans to cut for the prose: each hit, with the backticks or the fence that held only calls."""
    spans: list[tuple[int, int]] = []
    for hit in hits:
        start, end = hit.start, hit.end
        if (start >= 1 and end < len(text) and text[start - 1] == "`" and text[end] == "`"
                and text[start - 2:start] != "``" and text[end:end + 2] != "``"):
            start, end = start - 1, end + 1
        spans.append((start, end))
    calls = list(spans)
    starts = [s for s, _ in calls]
    for fence in fences:
        first = bisect_left(starts, fence.body_start)
        inside, cursor, clean = [], fence.body_start, True
        for s, e in calls[first:]:
            if s >= fence.body_end:
                break
            if e > fence.body_end or text[cursor:s].strip():
                clean = False
                break
            inside.append((s, e))
            cursor = e
        if inside and clean and not text[cursor:fence.body_end].strip() and (first == 0 or calls[first - 1][1] <= fence.start):
            spans.append((fence.start, fence.end))
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def _prose(text: str, spans: list[tuple[int, int]]) -> str:
    """The text outside `spans`. The whitespace around each cut becomes one space, one newline or
    one blank line, so removing a call leaves no hole."""
    pieces, pos = [], 0
    for start, end in spans:
        pieces.append(text[pos:start])
        pos = end
    pieces.append(text[pos:])
    out: list[str] = []
    gaps: list[str] = []  # the runs of whitespace met since the last kept text, one per side of a cut
    for piece in pieces:
        core = piece.strip()
        if not core:
            gaps.append(piece)
            continue
        if out:
            gaps.append(piece[: len(piece) - len(piece.lstrip())])
            # A blank line survives only if one was there already, not from two line ends around a call.
            newlines = max(gap.count("\n") for gap in gaps)
            out.append("\n\n" if newlines >= 2 else "\n" if newlines else " " if any(gaps) else "")
        out.append(core)
        gaps = [piece[len(piece.rstrip()):]]
    return "".join(out)


def parse_tool_calls(text: str, formats: Sequence[str] = NATIVE_FORMATS, tools: Sequence | None = None) -> ParseResult:
    """Find the tool calls in `text`, in the given `formats` (see FORMATS); never raises on any text.

    `tools`: the known tools, in any form `kitchen.schemas.as_schema` accepts. The ``python`` and
    ``call_tag`` formats need them (they find calls by tool name and map values through the
    schema's parameter order); without tools those two find nothing.

    >>> parse_tool_calls('<tool_call>{"name": "f", "arguments": {}}</tool_call>').calls[0].name
    'f'
    >>> r = parse_tool_calls('Sure!\\n```json\\n{\\n  "name": "f",\\n  "arguments": {"x": 2}\\n}\\n```')
    >>> r.calls[0].arguments, r.prose
    ({'x': 2}, 'Sure!')
    >>> parse_tool_calls('<tool_call>{"name": "f", "arguments": [1]}</tool_call>').errors[0].kind
    'bad_arguments'
    """
    if isinstance(formats, str):
        formats = (formats,)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"Unknown tool-call format(s) {unknown}; the formats are {FORMATS}.")
    table = _tool_table(tools)
    if not isinstance(text, str):
        text = "" if text is None else str(text)

    accepted: list[Hit] = []
    internal: list[ParseError] = []
    try:
        ctx = _Context(text, table, _find_fences(text), len(text.rstrip()))
    except Exception as err:  # never expected: keep the harness running all the same
        ctx = _Context(text, table, [], len(text.rstrip()))
        internal.append(_internal_error(err))
    for fmt in _PRIORITY:
        if fmt not in formats:
            continue
        try:
            accepted = _merge(accepted, _non_overlapping(_SCANNERS[fmt](ctx)))
        except Exception as err:
            internal.append(_internal_error(err, fmt))
    try:
        prose = _prose(text, _removed_spans(text, accepted, ctx.fences))
    except Exception as err:
        prose = text.strip()
        internal.append(_internal_error(err))
    return ParseResult(
        calls=[h for h in accepted if isinstance(h, ToolCall)],
        errors=[h for h in accepted if isinstance(h, ParseError)] + internal,
        prose=prose,
    )


def _internal_error(err: Exception, fmt: str = "") -> ParseError:
    return ParseError("internal_error", (
        f"The tool-call parser failed on this text ({type(err).__name__}: {_short(str(err))}); "
        f"this is a bug in the parser, not in the text. Try writing the call again."), "", fmt, 0, 0)
