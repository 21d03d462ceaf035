"""The format scanners by name, and the three formats that write a call as JSON
(`kitchen.harness.parsing.formats`)."""

from __future__ import annotations

from kitchen.harness.parsing import FORMATS, ParseError, ToolCall
from kitchen.harness.parsing.formats import SCANNERS, scan_json, scan_qwen, scan_tool_call_fence
from kitchen.harness.parsing.hits import Context
from kitchen.harness.parsing.merging import PRIORITY
from kitchen.harness.parsing.scanning import find_fences


def context(text: str) -> Context:
    return Context(text, {}, find_fences(text), len(text.rstrip()))


def test_every_format_has_a_scanner_and_a_place_in_the_order() -> None:
    assert set(SCANNERS) == set(FORMATS) == set(PRIORITY)


def test_a_closing_tag_inside_a_string_does_not_end_the_qwen_block() -> None:
    text = '<tool_call>{"name": "say", "arguments": {"text": "</tool_call>"}}</tool_call> after'
    (hit,) = scan_qwen(context(text))
    assert isinstance(hit, ToolCall) and hit.arguments == {"text": "</tool_call>"}
    assert hit.end == text.index(" after")


def test_an_unclosed_last_qwen_block_counts_when_its_json_is_complete() -> None:
    (call,) = scan_qwen(context('<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n'))
    assert isinstance(call, ToolCall) and call.arguments == {"x": 1}
    (cut,) = scan_qwen(context('<tool_call>\n{"name": "f", "argu'))
    assert isinstance(cut, ParseError) and cut.kind == "truncated"


def test_only_a_tool_call_fence_is_read_by_the_fence_scanner() -> None:
    body = '{"name": "f", "arguments": {}}'
    assert [h.name for h in scan_tool_call_fence(context(f"```tool_call\n{body}\n```"))] == ["f"]
    assert scan_tool_call_fence(context(f"```json\n{body}\n```")) == []


def test_bare_json_finds_a_call_inside_other_json_and_leaves_the_rest() -> None:
    text = 'Config {"debug": true}; calls {"tool_calls": [{"name": "f", "arguments": {"x": 2}}]}'
    (call,) = scan_json(context(text))
    assert (call.name, call.arguments) == ("f", {"x": 2})
    assert call.raw == '{"name": "f", "arguments": {"x": 2}}'
