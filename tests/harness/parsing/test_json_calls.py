"""Reading a call written as JSON (`kitchen.harness.parsing.json_calls`): the object, the block that
holds it, and the messages that say what was wrong."""

from __future__ import annotations

from kitchen.harness.parsing.hits import Context, ScanVerdict
from kitchen.harness.parsing.json_calls import json_failure, parse_block, read_call_object
from kitchen.harness.parsing.known_tools import Tool
from kitchen.harness.parsing.results import ParseError, ToolCall
from kitchen.harness.parsing.scanning import decode


def test_reading_a_call_object() -> None:
    openai = {"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    assert read_call_object(openai, strict=False, tools={}) == ScanVerdict("call", "f", {"x": 1})
    assert read_call_object({"name": "f"}, strict=False, tools={}) is None
    known = {"f": Tool("f", (), ())}
    assert read_call_object({"name": "f"}, strict=False, tools=known) == ScanVerdict("call", "f", {})
    assert read_call_object([1], strict=True, tools={}).kind == "missing_name"
    bad = read_call_object({"name": "f", "arguments": [1]}, strict=True, tools={})
    assert bad.kind == "bad_arguments" and "must be a JSON object" in bad.message


def test_parameters_count_as_arguments_unless_the_object_is_an_echoed_schema() -> None:
    assert read_call_object({"name": "f", "parameters": {"x": 1}}, strict=False, tools={}) == \
        ScanVerdict("call", "f", {"x": 1})
    echoed = {"name": "f", "description": "F.", "parameters": {"type": "object", "properties": {}}}
    assert read_call_object(echoed, strict=False, tools={}) is None


def test_a_failed_decode_is_truncated_when_cut_off_and_malformed_otherwise() -> None:
    cut = json_failure(decode('{"a": "b', 0), '{"a": "b', 0, True, "qwen")
    assert cut.kind == "truncated" and "a string is never closed" in cut.message
    assert "<tool_call>" in cut.message  # the format's own shape is shown
    broken = json_failure(decode("{a: 1}", 0), "{a: 1}", 0, False, "json")
    assert broken.kind == "malformed_json" and "line 1, column 2 of the call" in broken.message


def test_a_block_with_two_objects_gives_two_calls_that_share_its_tags() -> None:
    text = '<tool_call>{"name": "f", "arguments": {}}, {"name": "g", "arguments": {}}</tool_call>'
    ctx = Context(text, {}, [], len(text))
    first, second = parse_block(ctx, "qwen", 0, len("<tool_call>"), text.index("</tool_call>"), len(text), True)
    assert isinstance(first, ToolCall) and isinstance(second, ToolCall)
    assert (first.name, first.start, second.name, second.end) == ("f", 0, "g", len(text))
    assert first.end <= second.start


def test_an_empty_block_is_an_error_and_an_empty_open_one_is_truncated() -> None:
    text = "<tool_call></tool_call>"
    (closed,) = parse_block(Context(text, {}, [], len(text)), "qwen", 0, 11, 11, len(text), True)
    assert isinstance(closed, ParseError) and closed.kind == "malformed_json" and "empty" in closed.message
    (cut,) = parse_block(Context("<tool_call>", {}, [], 11), "qwen", 0, 11, 11, 11, False)
    assert cut.kind == "truncated"
