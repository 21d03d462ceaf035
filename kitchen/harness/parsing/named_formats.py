"""The two formats the parser finds by tool name: ``python`` calls and ``<call name>`` tags.

- ``python``: ``calculator(expression="2 + 2")``, read with `ast` and `ast.literal_eval`; nothing
  is ever run, and positional values map through the schema's parameter order;
- ``call_tag``: ``<call calculator>2 + 2</call>``, a body that is either a JSON object of
  arguments or the value of the one parameter a bare value fills (`bare_value_parameter`).

It owns finding and reading those two. Both need the known tools; without them they find nothing.
It does not choose between formats that claim the same text (`merging`).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from kitchen.harness.parsing.hits import Context, ScanVerdict, make_hit
from kitchen.harness.parsing.results import Hit
from kitchen.harness.parsing.scanning import PAREN_TOKENS, BadJSON, Finder, balanced_end, decode, rstrip_end, short
from kitchen.harness.parsing.known_tools import Tool, bare_value_parameter

_DEFINITION_BEFORE = re.compile(r"(?:^|\W)(?:def|class)\s+\Z")


def scan_python(ctx: Context) -> list[Hit]:
    """Python-style calls of known tools, read with `ast`: literal values only, nothing is run.

    >>> from kitchen.harness.parsing import parse_tool_calls
    >>> def calculator(expression: str) -> str:
    ...     '''Compute.
    ...
    ...     Args:
    ...         expression: What to compute.
    ...     '''
    >>> parse_tool_calls('calculator("2 + 2")', ["python"], tools=[calculator]).calls[0].arguments
    {'expression': '2 + 2'}
    >>> text = 'calculator(open("x").read())'
    >>> parse_tool_calls(text, ["python"], tools=[calculator]).errors[0].kind
    'not_literal'
    """
    names = sorted((n for n in ctx.tools if _dotted_name(n)), key=len, reverse=True)
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
        end = balanced_end(PAREN_TOKENS, text, m.end() - 1, len(text))
        if end is None:
            verdict = ScanVerdict("truncated", name, message=(
                f"The call {short(text[start:ctx.stop])} is not closed. Write the whole call and "
                f"end it with ')', e.g. {_python_example(ctx.tools[name])}."))
            hits.append(make_hit(ctx, "python", verdict, start, max(ctx.stop, m.end())))
            break  # this attempt runs to the end of the text
        verdict = _read_python_call(text[start:end], ctx.tools[name])
        hits.append(make_hit(ctx, "python", verdict, start, end))
        pos = end
    return hits


def _dotted_name(name: str) -> bool:
    """A name a Python call can use: an identifier, or several joined by dots (``math.hypot``)."""
    return all(part.isidentifier() for part in name.split("."))


def _python_example(tool: Tool) -> str:
    if not tool.params:
        return f"{tool.name}()"
    return f'{tool.name}({tool.params[0]}="...")'


def _literal(node: ast.expr) -> tuple[bool, Any]:
    """(True, value) for a plain JSON-like literal; (False, None) for anything else. Never runs
    code."""
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


def _read_python_call(source: str, tool: Tool) -> ScanVerdict:
    """`source` is ``name(...)`` with balanced parentheses."""
    example = _python_example(tool)
    try:
        tree = ast.parse(source, mode="eval")
    except Exception as err:  # SyntaxError, and MemoryError or RecursionError on absurd nesting
        reason = getattr(err, "msg", None) or type(err).__name__
        return ScanVerdict("bad_call", tool.name, message=(
            f"{short(source)} is not a valid Python call ({reason}). Write it like {example}, "
            f"with plain values."))
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return ScanVerdict("bad_call", tool.name,
                       message=f"{short(source)} is not a plain call. Write it like {example}.")

    nodes = list(call.args) + [k.value for k in call.keywords]
    for node in nodes:
        if isinstance(node, ast.Starred) or not _literal(node)[0]:
            segment = ast.get_source_segment(source, node) or "?"
            return ScanVerdict("not_literal", tool.name, message=(
                f"The call was not run: its argument `{short(segment, 60)}` is not a plain "
                f"value. The harness never evaluates code; write each value itself (a string in "
                f"quotes, a number, a list, a dict, True, False or None), e.g. {example}."))
    if any(k.arg is None for k in call.keywords):
        return ScanVerdict("not_literal", tool.name, message=(
            f"The call was not run: `**` arguments are not allowed. Name each argument, "
            f"e.g. {example}."))
    return _map_arguments(call, tool, example)


def _map_arguments(call: ast.Call, tool: Tool, example: str) -> ScanVerdict:
    """The values of a call made of plain values only, mapped to the tool's parameters."""
    if len(call.args) > len(tool.params):
        takes = f"{len(tool.params)} argument{'s' * (len(tool.params) != 1)}"
        if tool.params:
            takes += f" ({', '.join(tool.params)})"
        return ScanVerdict("too_many_arguments", tool.name, message=(
            f"{tool.name} takes {takes}, but {len(call.args)} were given. "
            f"Write it like {example}."))
    arguments = {param: _literal(node)[1] for param, node in zip(tool.params, call.args)}
    for keyword in call.keywords:
        assert keyword.arg is not None
        if keyword.arg not in tool.params:
            known = ", ".join(tool.params) or "none"
            return ScanVerdict("unknown_parameter", tool.name, message=(
                f"{tool.name} has no parameter {keyword.arg!r}; its parameters are: {known}."))
        if keyword.arg in arguments:
            return ScanVerdict("bad_call", tool.name, message=(
                f"{tool.name} got two values for {keyword.arg!r}. Give each argument once, "
                f"e.g. {example}."))
        arguments[keyword.arg] = _literal(keyword.value)[1]
    return ScanVerdict("call", tool.name, arguments)


_CALL_OPEN = re.compile(r"""<call(?:\s+(?:name\s*=\s*)?(["']?)([^\s<>"'/]+)\1)?\s*>""")
_CALL_CLOSE = "</call>"


def scan_call_tag(ctx: Context) -> list[Hit]:
    """The simplified ``<call name>body</call>`` form.

    A body that is a JSON object is the arguments; any other body is the value of the tool's one
    required parameter (or its first parameter).

    >>> from kitchen.harness.parsing import parse_tool_calls
    >>> tools = [{"type": "function", "function": {"name": "calculator", "description": "",
    ...           "parameters": {"type": "object",
    ...                          "properties": {"expression": {"type": "string"}}}}}]
    >>> text = '<call calculator>1234 * 5678</call>'
    >>> parse_tool_calls(text, ["call_tag"], tools).calls[0].arguments
    {'expression': '1234 * 5678'}
    """
    if not ctx.tools:
        return []
    text, hits, pos = ctx.text, [], 0
    openers = list(_CALL_OPEN.finditer(text))
    closes = Finder(text, _CALL_CLOSE)
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
                       ScanVerdict("missing_name",
                               message=f"A <call> tag needs the tool's name, e.g. {example}."))
        else:
            end = rstrip_end(text, start, reopen if reopen != -1 else len(text))
            verdict = ScanVerdict("truncated", name or "", message=(
                f"The call to {name or 'a tool'} is not closed. End it with </call>, "
                f"e.g. {example}."))
        hits.append(make_hit(ctx, "call_tag", verdict, start, end))
        pos = end
    return hits


def _call_tag_verdict(name: str, body: str, tools: dict[str, Tool]) -> ScanVerdict:
    value = body.strip()
    if value.startswith("{"):
        decoded = decode(value, 0)
        if (not isinstance(decoded, BadJSON) and decoded[1] == len(value)
                and isinstance(decoded[0], dict)):
            return ScanVerdict("call", name, decoded[0])
        if value.endswith("}"):
            return ScanVerdict("malformed_json", name, message=(
                f"The body of <call {name}> looks like a JSON object but is not valid JSON. Write "
                f'either plain text, <call {name}>1234 * 5678</call>, or a JSON object with double '
                f'quotes, <call {name}>{{"expression": "1234 * 5678"}}</call>.'))
    if len(value) >= 2 and value[0] == value[-1] == '"':  # a quoted string: drop the quotes
        decoded = decode(value, 0)
        if (not isinstance(decoded, BadJSON) and decoded[1] == len(value)
                and isinstance(decoded[0], str)):
            value = decoded[0]
    tool = tools.get(name)
    if tool is None or not value:
        # An unknown tool: no schema to place the text in, the harness answers it.
        return ScanVerdict("call", name, {})
    target = bare_value_parameter(tool.params, tool.required)
    if target is None:
        return ScanVerdict("too_many_arguments", name, message=(
            f"{name} takes no arguments, but the tag holds text. Write <call {name}></call>."))
    return ScanVerdict("call", name, {target: value})
