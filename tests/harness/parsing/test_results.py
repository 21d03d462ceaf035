"""What the parser gives back (`kitchen.harness.parsing.results`): calls, failed attempts, prose,
and the names of the formats and error kinds."""

from __future__ import annotations

from kitchen.harness.parsing import parse_tool_calls
from kitchen.harness.parsing.results import (ERROR_KINDS, FORMATS, NATIVE_FORMATS, ParseError, ParseResult,
                                             ToolCall)


def test_a_message_call_is_a_copy_in_the_template_shape() -> None:
    call = ToolCall("f", {"items": [1, 2]}, "json", "", 0, 1)
    message_call = call.to_message_call()
    assert message_call == {"type": "function", "function": {"name": "f", "arguments": {"items": [1, 2]}}}
    message_call["function"]["arguments"]["items"].append(3)
    assert call.arguments == {"items": [1, 2]}


def test_a_result_is_found_when_it_holds_a_call_or_a_failed_attempt() -> None:
    error = ParseError("truncated", "cut", "{", "json", 0, 1)
    assert ParseResult([], [error], "").found
    assert ParseResult([ToolCall("f", {}, "json", "", 0, 1)], [], "").found
    assert not ParseResult([], [], "just prose").found


def test_the_native_formats_are_formats_and_every_kind_the_parser_gives_is_named() -> None:
    assert set(NATIVE_FORMATS) <= set(FORMATS) and len(set(FORMATS)) == len(FORMATS)
    broken = ['<tool_call>{"name": 1, "arguments": {}}</tool_call>', '<tool_call>{"name": "f", "argu',
              '{"name": "f", "arguments": [1]}', "<tool_call>{x}</tool_call>"]
    kinds = {e.kind for text in broken for e in parse_tool_calls(text, FORMATS).errors}
    assert kinds == {"missing_name", "truncated", "bad_arguments", "malformed_json"}
    assert kinds <= set(ERROR_KINDS)
