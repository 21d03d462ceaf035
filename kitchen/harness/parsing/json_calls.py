"""Reading a call written as JSON: ``{"name": ..., "arguments": {...}}``, in tags, fences or bare.

It owns what the three JSON formats share: interpreting a decoded object as a call (the OpenAI
wrapper, "parameters" for "arguments", arguments given as a JSON string), the body of a block that
holds only calls (``<tool_call>`` tags, a ```tool_call fence), and the messages that tell the
model what was wrong. It does not find the blocks or bare objects in a text: `formats` does.
"""

from __future__ import annotations

from typing import Any

from kitchen.harness.parsing.hits import Context, ScanVerdict, make_hit
from kitchen.harness.parsing.results import Hit
from kitchen.harness.parsing.scanning import FENCE_OPEN, BadJSON, decode, incomplete, short, skip, where
from kitchen.harness.parsing.known_tools import Tool

EXPECTED = {
    "qwen": '<tool_call>\n{"name": "<tool name>", "arguments": {<arguments>}}\n</tool_call>',
    "json": '{"name": "<tool name>", "arguments": {<arguments>}}',
    "tool_call_fence": '```tool_call\n{"name": "<tool name>", "arguments": {<arguments>}}\n```',
}

_NO_NAME = ('The tool call has no "name", or its name is not a string. Write the tool\'s name as a '
            'string: {"name": "<tool name>", "arguments": {<arguments>}}.')


def json_failure(bad: BadJSON, text: str, start: int, cut_off: bool, fmt: str) -> ScanVerdict:
    """The verdict on JSON that failed to decode at `start` of `text`: cut off, or malformed."""
    expected = EXPECTED.get(fmt, EXPECTED["json"])
    reason = bad.reason.removesuffix(" at")  # the decoder's messages end in " at" before a position
    if cut_off:
        in_string = reason.startswith(("Unterminated string", "Invalid control"))
        left_open = "a string" if in_string else "a brace"
        return ScanVerdict("truncated", message=(
            f"The tool call stops before its JSON is complete: {left_open} is never closed. "
            f"Write the whole call, closing every brace and quote: {expected}"))
    at = f" at {where(text, start, bad.pos)} of the call" if bad.exact else ""
    return ScanVerdict("malformed_json", message=(
        f"The tool call is not valid JSON: {reason}{at}. Write it as {expected}, "
        f"with double quotes around every key and every string."))


def _arguments(value: Any, name: str) -> dict | str:
    """The arguments as a dict, or the message saying why they are not one."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if isinstance(value, str):
        decoded = decode(value, skip(value, 0))
        if isinstance(decoded, BadJSON) or value[decoded[1]:].strip():
            return (f'The "arguments" of the call to {name!r} are a string that is not valid JSON. '
                    f'Give them as a JSON object, e.g. "arguments": {{"expression": "2 + 2"}}.')
        value = decoded[0]
    if isinstance(value, dict):
        return value
    kind = {list: "a list", str: "a string", bool: "true/false", int: "a number", float: "a number"}
    return (f'The "arguments" of the call to {name!r} must be a JSON object that maps parameter '
            f'names to values, e.g. {{"expression": "2 + 2"}}, '
            f'not {kind.get(type(value), "that")}.')


def _looks_like_schema(obj: dict) -> bool:
    """A tool description echoed back (name, description, parameters schema), not a call."""
    params = obj.get("parameters")
    return "description" in obj or (
        isinstance(params, dict) and "properties" in params and "type" in params)


def read_call_object(obj: Any, *, strict: bool, tools: dict[str, Tool]) -> ScanVerdict | None:
    """Interpret a decoded JSON object. `strict`: it sits where only a call belongs (tags, a
    ```tool_call fence), so anything is an attempt; otherwise an object that does not look like a
    call is just JSON in the prose (None).

    >>> read_call_object({"name": "f", "arguments": "{}"}, strict=False, tools={})
    ScanVerdict(kind='call', name='f', arguments={}, message='')
    >>> print(read_call_object({"debug": True}, strict=False, tools={}))
    None
    """
    if not isinstance(obj, dict):
        return ScanVerdict("missing_name", message=_NO_NAME) if strict else None
    inner = obj
    if isinstance(obj.get("function"), dict) and obj.get("type", "function") == "function":
        inner = obj["function"]  # the OpenAI wrapper {"type": "function", "function": {...}}
    has_arguments = "arguments" in inner or (
        "parameters" in inner and not _looks_like_schema(inner))
    name = inner.get("name")
    if not strict:
        if "name" not in inner:
            return None
        if not has_arguments:
            # {"name": "<a known tool>"} alone: a call of a tool that needs no arguments
            if isinstance(name, str) and name.strip() in tools and len(inner) == 1:
                return ScanVerdict("call", name.strip(), {})
            return None
    if not isinstance(name, str) or not name.strip():
        return ScanVerdict("missing_name", message=_NO_NAME)
    name = name.strip()
    given = inner["arguments"] if "arguments" in inner else inner.get("parameters")
    arguments = _arguments(given, name)
    if isinstance(arguments, str):
        return ScanVerdict("bad_arguments", name, message=arguments)
    return ScanVerdict("call", name, arguments)


def _not_an_object(body: str, pos: int, stop: int, closed: bool, fmt: str) -> ScanVerdict | None:
    """What is wrong with a block whose body (from `pos` to `stop`) does not start an object."""
    expected = EXPECTED[fmt]
    if pos >= stop:
        if closed:
            return ScanVerdict("malformed_json",
                           message=f"The tool call is empty. Write it as {expected}")
        return ScanVerdict("truncated", message=(
            f"The tool call stops right after it opens. Write it as {expected}"))
    if body[pos] != "{":
        return ScanVerdict("malformed_json", message=(
            f"The tool call must hold a JSON object, but it starts with "
            f"{short(body[pos:], 30)!r}. Write it as {expected}"))
    return None


def parse_block(ctx: Context, fmt: str, start: int, body_start: int, body_end: int, end: int,
                closed: bool) -> list[Hit]:
    """The body of a block that holds nothing but a call: ``<tool_call>`` tags or a ```tool_call
    fence.

    Usually one JSON object. Several objects in one block give one call each; the block's own
    text (tags, fence, stray characters after the last object) belongs to the first and last.
    """
    body = ctx.text[body_start:body_end]
    pos = skip(body, 0)
    if body.startswith("```", pos):  # a fenced object inside the tags
        opener = FENCE_OPEN.match(body, pos)
        pos = skip(body, opener.end() if opener else pos + 3)
    stop = len(body.rstrip().removesuffix("```").rstrip()) if pos < len(body) else pos
    problem = _not_an_object(body, pos, stop, closed, fmt)
    if problem is not None:
        return [make_hit(ctx, fmt, problem, start, end)]

    items: list[tuple[int, int, ScanVerdict]] = []
    while True:
        decoded = decode(body, pos)
        if isinstance(decoded, BadJSON):
            cut_off = incomplete(decoded, body, stop)
            items.append((pos, stop, json_failure(decoded, body, pos, cut_off, fmt)))
            break
        obj, after = decoded
        verdict = read_call_object(obj, strict=True, tools=ctx.tools)
        assert verdict is not None  # strict mode always gives a verdict
        items.append((pos, after, verdict))
        pos = skip(body, after, " \t\r\n,")
        if pos >= stop or body[pos] != "{":
            break
    hits = []
    for n, (item_start, item_end, verdict) in enumerate(items):
        hit_start = start if n == 0 else body_start + item_start
        hit_end = end if n == len(items) - 1 else body_start + item_end
        hits.append(make_hit(ctx, fmt, verdict, hit_start, hit_end))
    return hits
