"""The format scanners of the parser, by name; here the three formats that write a call as JSON.

- ``qwen``: ``<tool_call>{"name": "f", "arguments": {...}}</tool_call>``, Qwen's native blocks
  (the same tags as `kitchen.harness.parsing.basic`, read here so that a cut-off call is reported too);
- ``tool_call_fence``: the object in a ```tool_call fence (chapter 04's prompt-based protocol);
- ``json``: the object without the tags, bare in the text or in a ```json (or plain ```) fence.

It owns finding those in the text and `SCANNERS`, the table of all five formats (the two found by
tool name are in `named_formats`). Reading a call object is `json_calls`; choosing between
formats that claim the same text is `merging`.
"""

from __future__ import annotations

import re
from typing import Callable

from kitchen.harness.parsing.basic import TAG_CLOSE, TAG_OPEN
from kitchen.harness.parsing.hits import Context, make_hit
from kitchen.harness.parsing.json_calls import json_failure, parse_block, read_call_object
from kitchen.harness.parsing.named_formats import scan_call_tag, scan_python
from kitchen.harness.parsing.results import Hit
from kitchen.harness.parsing.scanning import (BRACE_TOKENS, BadJSON, Finder, balanced_end, decode, incomplete,
                       rstrip_end, skip)


def scan_qwen(ctx: Context) -> list[Hit]:
    """Qwen's native ``<tool_call>`` blocks. An unclosed last block (generation stopped at the
    stop string, or ran out of tokens) still counts when its JSON is complete.

    >>> from kitchen.harness.parsing import parse_tool_calls
    >>> parse_tool_calls('<tool_call>{"name": "f", "arguments": {}}</tool_call>').calls[0].name
    'f'
    >>> parse_tool_calls('<tool_call>\\n{"name": "f", "arguments": {"x": 1}}').calls[0].arguments
    {'x': 1}
    >>> parse_tool_calls('<tool_call>\\n{"name": "f", "argu').errors[0].kind
    'truncated'
    """
    text, hits, pos = ctx.text, [], 0
    closes = Finder(text, TAG_CLOSE)
    while (start := text.find(TAG_OPEN, pos)) != -1:
        body_start = start + len(TAG_OPEN)
        # Look for the closing tag after the object, so that a string value holding "</tool_call>"
        # does not end the block early.
        search_from, first, cut_off = body_start, skip(text, body_start), False
        if text.startswith("{", first):
            decoded = decode(text, first)
            if not isinstance(decoded, BadJSON):
                search_from = decoded[1]
            else:  # open until the end of the text (a string never closed): later tags are inside
                cut_off = incomplete(decoded, text, ctx.stop)
        if cut_off:
            close, reopen = -1, -1
        else:
            close, reopen = closes.next(search_from), text.find(TAG_OPEN, search_from)
        if close != -1 and (reopen == -1 or close < reopen):
            body_end, end, closed = close, close + len(TAG_CLOSE), True
        else:
            body_end = reopen if reopen != -1 else len(text)
            end, closed = rstrip_end(text, body_start, body_end), False
        hits += parse_block(ctx, "qwen", start, body_start, body_end, end, closed)
        pos = end if closed else body_end
    return hits


_TOOL_CALL_LANGS = ("tool_call", "tool_calls", "tool-call", "toolcall")


def scan_tool_call_fence(ctx: Context) -> list[Hit]:
    """A ```tool_call fence holding the call's JSON (chapter 04's prompt-based protocol).

    >>> from kitchen.harness.parsing import parse_tool_calls
    >>> text = '```tool_call\\n{"name": "f", "arguments": {}}\\n```'
    >>> parse_tool_calls(text, ["tool_call_fence"]).calls[0].name
    'f'
    """
    hits: list[Hit] = []
    for fence in ctx.fences:
        if fence.lang in _TOOL_CALL_LANGS:
            end = fence.end if fence.closed else rstrip_end(ctx.text, fence.start, fence.body_end)
            hits += parse_block(ctx, "tool_call_fence", fence.start, fence.body_start,
                                fence.body_end, end, fence.closed)
    return hits


_JSON_LANGS = ("", "json", "json5", "jsonc")
# A brace that may open an object (or a call attempt).
_OBJECT_START = re.compile(r"""\{(?=\s*["'}])""")
_CALL_START = re.compile(r"""\{\s*(?:["'](?:name|function)["']\s*:|"type"\s*:\s*"function")""")


def _json_attempt(ctx: Context, text: str, offset: int, pos: int, stop: int, bad: BadJSON) -> Hit:
    """A failed decode at `pos` of `text` (which starts at `offset` of the whole text)."""
    cut_off = incomplete(bad, text, stop)
    end = None if cut_off else balanced_end(BRACE_TOKENS, text, pos, stop)
    verdict = json_failure(bad, text, pos, cut_off, "json")
    return make_hit(ctx, "json", verdict, offset + pos, offset + (end or stop))


def _fenced_json_attempts(ctx: Context) -> list[Hit]:
    """A fenced object that is cut off or broken: the fence, not the end of the text, bounds it."""
    text, hits = ctx.text, []
    for fence in ctx.fences:
        if fence.lang not in _JSON_LANGS:
            continue
        body = text[fence.body_start:fence.body_end]
        pos = skip(body, 0)
        if pos < len(body) and body[pos] == "{":
            decoded = decode(body, pos)
            if isinstance(decoded, BadJSON):
                stop = len(body.rstrip())
                if _CALL_START.match(body, pos) or incomplete(decoded, body, stop):
                    hits.append(_json_attempt(ctx, body, fence.body_start, pos, stop, decoded))
    return hits


def scan_json(ctx: Context) -> list[Hit]:
    """Call objects without tags: bare in the text, or in a ```json (or plain ```) fence.

    Every ``{`` that may open an object is tried with `json.JSONDecoder.raw_decode`; an object
    counts only if it has a string "name" and "arguments" (or "parameters"), directly or in the
    OpenAI wrapper. Other JSON is left in the prose.

    >>> from kitchen.harness.parsing import parse_tool_calls
    >>> text = '{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}'
    >>> parse_tool_calls(text).calls[0].format
    'json'
    >>> parse_tool_calls('The config is {"debug": true}.').found
    False
    """
    text = ctx.text
    # Bare objects everywhere (a complete fenced object is found here too), stepping over the
    # fenced attempts so that one broken fence cannot swallow the text after it.
    fenced, next_fenced = _fenced_json_attempts(ctx), 0
    hits = list(fenced)
    pos = 0
    while (found := _OBJECT_START.search(text, pos)) is not None:
        start = found.start()
        while next_fenced < len(fenced) and fenced[next_fenced].end <= start:
            next_fenced += 1
        if next_fenced < len(fenced) and fenced[next_fenced].start <= start:
            pos = fenced[next_fenced].end
            continue
        decoded = decode(text, start)
        if isinstance(decoded, BadJSON):
            if _CALL_START.match(text, start):
                hit = _json_attempt(ctx, text, 0, start, ctx.stop, decoded)
                hits.append(hit)
                pos = hit.end
            elif not decoded.exact:  # too deep to decode: skip the whole structure at once
                pos = balanced_end(BRACE_TOKENS, text, start, len(text)) or len(text)
            else:
                pos = start + 1
            continue
        obj, end = decoded
        verdict = read_call_object(obj, strict=False, tools=ctx.tools)
        if verdict is None:
            pos = start + 1  # not a call, but a call may sit inside it ({"tool_calls": [...]})
        else:
            hits.append(make_hit(ctx, "json", verdict, start, end))
            pos = end
    return hits


SCANNERS: dict[str, Callable[[Context], list[Hit]]] = {
    "qwen": scan_qwen,
    "json": scan_json,
    "tool_call_fence": scan_tool_call_fence,
    "python": scan_python,
    "call_tag": scan_call_tag,
}
