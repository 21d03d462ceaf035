r"""Find the tool calls in a model's text: the robust parser the harness uses.

Owns `parse_tool_calls`: the calls in the order they appear, in five formats (``qwen`` tags,
bare or fenced ``json``, a ```tool_call fence, ``python`` calls and ``call_tag``s of known
tools), every failed attempt as a `ParseError` written for the model to read, and the prose left.
It never raises on any text and never runs anything. The work is split by job: `scanning`,
`known_tools`, `json_calls`, `formats`, `named_formats`, `merging`. The plain reading chapter 04
starts from is `kitchen.harness.parsing.basic`. Does not validate arguments or judge tool names (the
toolbox does).

>>> r = parse_tool_calls('Let me check.\n<tool_call>\n'
...                      '{"name": "f", "arguments": {"x": 1}}\n</tool_call>')
>>> r.calls[0].name, r.calls[0].arguments, r.prose
('f', {'x': 1}, 'Let me check.')
"""

from __future__ import annotations

from typing import Sequence

from kitchen.harness.parsing.formats import SCANNERS
from kitchen.harness.parsing.hits import Context
from kitchen.harness.parsing.merging import PRIORITY, merge, non_overlapping, prose, removed_spans
from kitchen.harness.parsing.results import ERROR_KINDS, FORMATS, NATIVE_FORMATS, Hit, ParseError, ParseResult, ToolCall
from kitchen.harness.parsing.scanning import find_fences, short
from kitchen.harness.parsing.known_tools import bare_value_parameter, read_tools

__all__ = ["ERROR_KINDS", "FORMATS", "NATIVE_FORMATS", "Hit", "ParseError", "ParseResult",
           "ToolCall", "bare_value_parameter", "parse_tool_calls"]


def parse_tool_calls(text: str, formats: Sequence[str] = NATIVE_FORMATS,
                     tools: Sequence | None = None) -> ParseResult:
    """Find the tool calls in `text`, in the given `formats` (see FORMATS); never raises on any
    text.

    `tools`: the known tools, in any form `kitchen.tools.schemas.as_schema` accepts. The ``python`` and
    ``call_tag`` formats need them (they find calls by tool name and map values through the
    schema's parameter order); without tools those two find nothing.

    >>> parse_tool_calls('<tool_call>{"name": "f", "arguments": {}}</tool_call>').calls[0].name
    'f'
    >>> r = parse_tool_calls('Sure!\\n```json\\n{\\n  "name": "f",\\n'
    ...                      '  "arguments": {"x": 2}\\n}\\n```')
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
    table = read_tools(tools)
    if not isinstance(text, str):
        text = "" if text is None else str(text)

    accepted: list[Hit] = []
    internal: list[ParseError] = []
    try:
        ctx = Context(text, table, find_fences(text), len(text.rstrip()))
    except Exception as err:  # never expected: keep the harness running all the same
        ctx = Context(text, table, [], len(text.rstrip()))
        internal.append(_internal_error(err))
    for fmt in PRIORITY:
        if fmt not in formats:
            continue
        try:
            accepted = merge(accepted, non_overlapping(SCANNERS[fmt](ctx)))
        except Exception as err:
            internal.append(_internal_error(err, fmt))
    try:
        left = prose(text, removed_spans(text, accepted, ctx.fences))
    except Exception as err:
        left = text.strip()
        internal.append(_internal_error(err))
    return ParseResult(
        calls=[h for h in accepted if isinstance(h, ToolCall)],
        errors=[h for h in accepted if isinstance(h, ParseError)] + internal,
        prose=left,
    )


def _internal_error(err: Exception, fmt: str = "") -> ParseError:
    return ParseError("internal_error", (
        f"The tool-call parser failed on this text ({type(err).__name__}: {short(str(err))}); "
        f"this is a bug in the parser, not in the text. Try writing the call again."),
        "", fmt, 0, 0)
