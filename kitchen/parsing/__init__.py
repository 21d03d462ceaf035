"""Find the tool calls in a model's text: the robust tool-call parser of the series.

A model never calls anything. It writes text, and the harness has to find the calls in that
text. Qwen2.5 was trained to write ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
(the plain reading of that is `kitchen.parse_basic`), but small models drift: the offline 0.5B
pack writes the JSON object bare and the 1.5B pack puts it in a ```json fence. So
`parse_tool_calls` reads the formats models really write:

- ``qwen``: ``<tool_call>{"name": "f", "arguments": {...}}</tool_call>``, Qwen's native blocks;
- ``json``: the same object without the tags, bare in the text or in a ```json (or plain ```)
  fence;
- ``tool_call_fence``: the object in a ```tool_call fence (the prompt-based protocol of
  chapter 04);
- ``python``: ``calculator(expression="2 + 2")``, for known tool names only;
- ``call_tag``: ``<call calculator>2 + 2</call>``, for known tool names only.

It returns the calls in the order they appear, every failed attempt as a `ParseError` whose
message is written for the model to read and fix, and the prose left once both are taken out.

>>> r = parse_tool_calls('Let me check.\\n<tool_call>\\n'
...                      '{"name": "f", "arguments": {"x": 1}}\\n</tool_call>')
>>> r.calls[0].name, r.calls[0].arguments, r.prose
('f', {'x': 1}, 'Let me check.')

This module owns `parse_tool_calls` and the public names; the work is split by job: `scanning`
(text machinery), `tool_table` (the known tools), `json_calls`, `formats` and `named_formats`
(the five scanners), `merging` (overlapping hits, prose). What the parser deliberately does not do:

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

from typing import Sequence

from .formats import SCANNERS
from .hits import Context
from .merging import PRIORITY, merge, non_overlapping, prose, removed_spans
from .results import ERROR_KINDS, FORMATS, NATIVE_FORMATS, Hit, ParseError, ParseResult, ToolCall
from .scanning import find_fences, short
from .tool_table import bare_value_parameter, read_tools

__all__ = ["ERROR_KINDS", "FORMATS", "NATIVE_FORMATS", "Hit", "ParseError", "ParseResult",
           "ToolCall", "bare_value_parameter", "parse_tool_calls"]


def parse_tool_calls(text: str, formats: Sequence[str] = NATIVE_FORMATS,
                     tools: Sequence | None = None) -> ParseResult:
    """Find the tool calls in `text`, in the given `formats` (see FORMATS); never raises on any
    text.

    `tools`: the known tools, in any form `kitchen.schemas.as_schema` accepts. The ``python`` and
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
