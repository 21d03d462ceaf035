"""The plain tool-call parser, as chapter 04 types it out: find the blocks, `json.loads` each one.

It owns the one idea: a call is a ``<tool_call>...</tool_call>`` block (or any other pair of
markers, such as a ```tool_call fence) holding a JSON object with a string "name" and a dict
"arguments". Anything else in a block is reported in a sentence; nothing raises. It does not read
drifted formats, cut-off calls, positions or prose: that is the robust parser, `kitchen.harness.parsing`.

>>> parse_basic('Sure. <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
([('f', {'x': 1})], [])
>>> parse_basic('<tool_call>{name: "f"}</tool_call>')[1]
['block 1 is not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2']
"""

from __future__ import annotations

import json
from typing import Any

TAG_OPEN, TAG_CLOSE = "<tool_call>", "</tool_call>"

Call = tuple[str, dict[str, Any]]

_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number",
          bool: "true or false", type(None): "null"}


def parse_basic(text: str, opener: str = TAG_OPEN, closer: str = TAG_CLOSE
                ) -> tuple[list[Call], list[str]]:
    """The calls in `text` as (name, arguments), and one message per block that is not a call.

    >>> parse_basic('```tool_call\\n{"name": "f", "arguments": {}}\\n```', "```tool_call", "```")
    ([('f', {})], [])
    """
    if not isinstance(text, str):
        return [], [f"expected text, got {type(text).__name__}"]
    calls: list[Call] = []
    errors: list[str] = []
    pos, n = 0, 0
    while (start := text.find(opener, pos)) != -1:
        n += 1
        end = text.find(closer, start + len(opener))
        if end == -1:
            errors.append(f"block {n} is never closed with {closer}")
            break
        checked = _check(text[start + len(opener):end])
        if isinstance(checked, str):
            errors.append(f"block {n} {checked}")
        else:
            calls.append(checked)
        pos = end + len(closer)
    return calls, errors


def _check(body: str) -> Call | str:
    """The call in one block's body, or what is wrong with it (a phrase after "block N")."""
    try:
        obj = json.loads(body)
    except json.JSONDecodeError as err:
        return f"is not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}"
    except (ValueError, RecursionError) as err:  # a huge integer; nesting too deep to decode
        return f"is not valid JSON: {type(err).__name__}"
    if not isinstance(obj, dict):
        return f"holds {_KINDS.get(type(obj), 'a value')}, not a JSON object"
    if not isinstance(obj.get("name"), str):
        return 'has no string "name"'
    if not isinstance(obj.get("arguments"), dict):
        return 'has no object "arguments"'
    return obj["name"], obj["arguments"]
