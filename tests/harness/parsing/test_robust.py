"""Tests of `kitchen.harness.parsing.robust`, the parser as a whole through `parse_tool_calls`:
well-formed, drifted and hostile model output, no model needed."""

from __future__ import annotations

import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kitchen.harness.parsing
from kitchen.harness.parsing import (
    ERROR_KINDS,
    FORMATS,
    NATIVE_FORMATS,
    ParseError,
    ParseResult,
    ToolCall,
)
from kitchen.harness.parsing.robust import parse_tool_calls
from kitchen.tools.schemas import as_schema

# Number of generated cases per property test (reported by the lead).
RANDOM_TEXT_EXAMPLES = 3000
FRAGMENT_MIX_EXAMPLES = 3000
ROUND_TRIP_EXAMPLES = 1000
TRUNCATION_EXAMPLES = 1000


def calculator(expression: str) -> str:
    """Work out an arithmetic expression.

    Args:
        expression: The arithmetic to compute, such as "1234 * 5678".
    """
    raise AssertionError("the parser must never run a tool")


def search_rhymes(query: str, limit: int = 3) -> list[str]:
    """Find nursery rhymes that mention some words.

    Args:
        query: The words to look for.
        limit: The largest number of rhymes to return.
    """
    raise AssertionError("the parser must never run a tool")


TOOLS = [calculator, search_rhymes]
SCHEMAS = [as_schema(t) for t in TOOLS]  # the same tools as schema dicts (cheaper in the property tests)

# What the offline packs really wrote for "What is 1234 × 5678?" with a calculator tool.
BARE_JSON_05B = '{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}'
FENCED_JSON_15B = '```json\n{\n  "name": "calculator",\n  "arguments": {\n    "expression": "1234 * 5678"\n  }\n}\n```'
MULTIPLY = {"expression": "1234 * 5678"}


def parse(text: str, formats=FORMATS, tools=TOOLS) -> ParseResult:
    result = parse_tool_calls(text, formats, tools=tools)
    check_invariants(text, result)
    return result


def check_invariants(text: str, result: ParseResult) -> None:
    """What must hold for any text: spans inside it, in order, not overlapping, raw = the span."""
    assert isinstance(result, ParseResult)
    assert isinstance(result.prose, str)
    hits = sorted(result.calls + result.errors, key=lambda h: h.start)
    previous_end = 0
    for hit in hits:
        assert 0 <= hit.start < hit.end <= len(text), hit
        assert hit.start >= previous_end, "spans overlap"
        assert hit.raw == text[hit.start:hit.end]
        assert hit.format in FORMATS
        previous_end = hit.end
    assert [c.start for c in result.calls] == sorted(c.start for c in result.calls)
    for call in result.calls:
        assert isinstance(call, ToolCall)
        assert isinstance(call.name, str) and call.name
        assert isinstance(call.arguments, dict)
    for error in result.errors:
        assert isinstance(error, ParseError)
        assert error.kind in ERROR_KINDS and error.kind != "internal_error", error
        assert len(error.message) > 30 and not error.message[0].isspace(), error.message
    assert result.found == bool(result.calls or result.errors)


def only_call(result: ParseResult) -> ToolCall:
    assert not result.errors, result.errors
    assert len(result.calls) == 1, result.calls
    return result.calls[0]


def only_error(result: ParseResult) -> ParseError:
    assert not result.calls, result.calls
    assert len(result.errors) == 1, result.errors
    return result.errors[0]


# --------------------------------------------------------------------------- what the packs wrote

@pytest.mark.parametrize("text", [BARE_JSON_05B, FENCED_JSON_15B], ids=["bare-0.5B", "fenced-1.5B"])
def test_native_formats_find_what_the_packs_wrote(text):
    result = parse(text, NATIVE_FORMATS, tools=None)
    call = only_call(result)
    assert (call.name, call.arguments, call.format) == ("calculator", MULTIPLY, "json")
    assert result.prose == ""


@pytest.mark.parametrize("text", [BARE_JSON_05B, FENCED_JSON_15B], ids=["bare-0.5B", "fenced-1.5B"])
def test_tags_alone_miss_what_the_packs_wrote(text):
    assert not parse(text, ["qwen"], tools=None).found


def test_fenced_json_raw_is_the_object():
    call = only_call(parse(FENCED_JSON_15B, NATIVE_FORMATS))
    assert call.raw == FENCED_JSON_15B[len("```json\n"):-len("\n```")]


# --------------------------------------------------------------------------- well-formed and drifted calls

TAGGED = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}\n</tool_call>'

WELL_FORMED = [
    # (text, formats, expected [(name, arguments, format)])
    (TAGGED, NATIVE_FORMATS, [("calculator", MULTIPLY, "qwen")]),
    ('<tool_call>{"name": "calculator", "arguments": {"expression": "1 + 1"}}</tool_call>', ["qwen"],
     [("calculator", {"expression": "1 + 1"}, "qwen")]),
    ('First I add.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "1 + 1"}}\n</tool_call>\n'
     'Then I search.\n<tool_call>\n{"name": "search_rhymes", "arguments": {"query": "sheep", "limit": 2}}\n</tool_call>\n'
     '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2 * 3"}}\n</tool_call>', NATIVE_FORMATS,
     [("calculator", {"expression": "1 + 1"}, "qwen"), ("search_rhymes", {"query": "sheep", "limit": 2}, "qwen"),
      ("calculator", {"expression": "2 * 3"}, "qwen")]),
    # generation stopped at the stop string, so the closing tag is missing
    ('<tool_call>\n{"name": "calculator", "arguments": {"expression": "2 + 2"}}\n', NATIVE_FORMATS,
     [("calculator", {"expression": "2 + 2"}, "qwen")]),
    # arguments given as a JSON string
    ('<tool_call>{"name": "calculator", "arguments": "{\\"expression\\": \\"2 + 2\\"}"}</tool_call>', ["qwen"],
     [("calculator", {"expression": "2 + 2"}, "qwen")]),
    ('{"name": "calculator", "arguments": "{\\"expression\\": \\"2 + 2\\"}"}', ["json"],
     [("calculator", {"expression": "2 + 2"}, "json")]),
    # "parameters" instead of "arguments"
    ('<tool_call>{"name": "calculator", "parameters": {"expression": "5"}}</tool_call>', ["qwen"],
     [("calculator", {"expression": "5"}, "qwen")]),
    ('{"name": "calculator", "parameters": {"expression": "5"}}', ["json"],
     [("calculator", {"expression": "5"}, "json")]),
    # no arguments at all inside tags, or null
    ('<tool_call>{"name": "list_files"}</tool_call>', ["qwen"], [("list_files", {}, "qwen")]),
    ('<tool_call>{"name": "list_files", "arguments": null}</tool_call>', ["qwen"], [("list_files", {}, "qwen")]),
    # two objects in one block, a fenced object inside the tags, a stray extra brace
    ('<tool_call>\n{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {"x": 1}}\n</tool_call>', ["qwen"],
     [("a", {}, "qwen"), ("b", {"x": 1}, "qwen")]),
    ('<tool_call>\n```json\n{"name": "a", "arguments": {"x": 1}}\n```\n</tool_call>', ["qwen"], [("a", {"x": 1}, "qwen")]),
    ('<tool_call>{"name": "a", "arguments": {"x": 1}}}</tool_call>', ["qwen"], [("a", {"x": 1}, "qwen")]),
    # an unclosed block followed by a closed one
    ('<tool_call>{"name": "a", "arguments": {}}\n<tool_call>{"name": "b", "arguments": {}}</tool_call>', ["qwen"],
     [("a", {}, "qwen"), ("b", {}, "qwen")]),
    # a string value that holds the tags does not end the block
    ('<tool_call>{"name": "echo", "arguments": {"text": "</tool_call> <tool_call>"}}</tool_call>', ["qwen"],
     [("echo", {"text": "</tool_call> <tool_call>"}, "qwen")]),
    # bare JSON with prose around it, a plain ``` fence, a fence without its language, inline backticks
    ('Sure, I will use the calculator: {"name": "calculator", "arguments": {"expression": "9 / 3"}} and report back.',
     ["json"], [("calculator", {"expression": "9 / 3"}, "json")]),
    ('```\n{"name": "calculator", "arguments": {"expression": "7"}}\n```', ["json"],
     [("calculator", {"expression": "7"}, "json")]),
    ('Call: `{"name": "calculator", "arguments": {"expression": "7"}}`', ["json"],
     [("calculator", {"expression": "7"}, "json")]),
    # the OpenAI-style wrapper, bare and in tags
    ('{"type": "function", "function": {"name": "calculator", "arguments": {"expression": "3"}}}', ["json"],
     [("calculator", {"expression": "3"}, "json")]),
    ('{"type": "function", "function": {"name": "calculator", "arguments": "{\\"expression\\": \\"3\\"}"}}', ["json"],
     [("calculator", {"expression": "3"}, "json")]),
    ('<tool_call>{"type": "function", "function": {"name": "calculator", "arguments": {"expression": "3"}}}</tool_call>',
     ["qwen"], [("calculator", {"expression": "3"}, "qwen")]),
    # a call inside other JSON, and a known tool named with no arguments
    ('{"tool_calls": [{"name": "calculator", "arguments": {"expression": "4"}}]}', ["json"],
     [("calculator", {"expression": "4"}, "json")]),
    ('{"name": "calculator"}', ["json"], [("calculator", {}, "json")]),
    # several bare objects, one per line
    ('{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {"y": [1, 2]}}', ["json"],
     [("a", {}, "json"), ("b", {"y": [1, 2]}, "json")]),
    # the ```tool_call fence of chapter 04: closed, unclosed, two objects
    ('```tool_call\n{"name": "calculator", "arguments": {"expression": "8"}}\n```', ["tool_call_fence"],
     [("calculator", {"expression": "8"}, "tool_call_fence")]),
    ('I need a tool.\n```tool_call\n{"name": "calculator", "arguments": {"expression": "8"}}', ["tool_call_fence"],
     [("calculator", {"expression": "8"}, "tool_call_fence")]),
    ('```tool_call\n{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {}}\n```', ["tool_call_fence"],
     [("a", {}, "tool_call_fence"), ("b", {}, "tool_call_fence")]),
    # python-style calls: keyword, positional, mixed, in backticks, in a fence, in prose
    ('search_rhymes(query="sheep")', ["python"], [("search_rhymes", {"query": "sheep"}, "python")]),
    ('calculator("1234 * 5678")', ["python"], [("calculator", MULTIPLY, "python")]),
    ("search_rhymes('sheep', limit=2)", ["python"], [("search_rhymes", {"query": "sheep", "limit": 2}, "python")]),
    ('search_rhymes("star", 1)', ["python"], [("search_rhymes", {"query": "star", "limit": 1}, "python")]),
    ("I will call calculator(expression='2+2') now", ["python"], [("calculator", {"expression": "2+2"}, "python")]),
    ('Running `calculator("6 * 7")`.', ["python"], [("calculator", {"expression": "6 * 7"}, "python")]),
    ('```python\ncalculator("1 + 1")\nsearch_rhymes(query="hill", limit=1)\n```', ["python"],
     [("calculator", {"expression": "1 + 1"}, "python"), ("search_rhymes", {"query": "hill", "limit": 1}, "python")]),
    ('search_rhymes(\n    query="it\'s (not) here",\n    limit=3,\n)', ["python"],
     [("search_rhymes", {"query": "it's (not) here", "limit": 3}, "python")]),
    ('search_rhymes(query=("a", "b"), limit=None)', ["python"],
     [("search_rhymes", {"query": ["a", "b"], "limit": None}, "python")]),
    ('calculator()', ["python"], [("calculator", {}, "python")]),
    # the simplified call tag: text body, JSON body, quoted body, empty body, unknown tool
    ("<call calculator>1234 * 5678</call>", ["call_tag"], [("calculator", MULTIPLY, "call_tag")]),
    ('<call search_rhymes>{"query": "sheep", "limit": 1}</call>', ["call_tag"],
     [("search_rhymes", {"query": "sheep", "limit": 1}, "call_tag")]),
    ("<call search_rhymes>little lamb</call>", ["call_tag"], [("search_rhymes", {"query": "little lamb"}, "call_tag")]),
    ('<call calculator>"2 + 2"</call>', ["call_tag"], [("calculator", {"expression": "2 + 2"}, "call_tag")]),
    ("<call calculator></call>", ["call_tag"], [("calculator", {}, "call_tag")]),
    ('<call name="calculator">3 * 3</call>', ["call_tag"], [("calculator", {"expression": "3 * 3"}, "call_tag")]),
    ("<call weather>Paris</call>", ["call_tag"], [("weather", {}, "call_tag")]),
    ("Let me see. <call calculator>1 + 2</call> and <call calculator>3 + 4</call>", ["call_tag"],
     [("calculator", {"expression": "1 + 2"}, "call_tag"), ("calculator", {"expression": "3 + 4"}, "call_tag")]),
]


@pytest.mark.parametrize("text, formats, expected", WELL_FORMED)
def test_calls_are_found(text, formats, expected):
    result = parse(text, formats)
    assert not result.errors, result.errors
    assert [(c.name, c.arguments, c.format) for c in result.calls] == expected


def test_unknown_tool_names_are_still_calls():
    for text in ['<tool_call>{"name": "launch_rocket", "arguments": {}}</tool_call>',
                 '{"name": "launch_rocket", "arguments": {}}']:
        assert only_call(parse(text, NATIVE_FORMATS)).name == "launch_rocket"


# --------------------------------------------------------------------------- failed attempts

BROKEN = [
    # (text, formats, kind, words the message must hold)
    ('<tool_call>\n{"name": "calculator", "arguments": {"expression": "1234 *', NATIVE_FORMATS, "truncated", ["complete"]),
    ('<tool_call>\n{"name": "calculator", "arguments": {"expression": "1"}', NATIVE_FORMATS, "truncated", ["brace"]),
    ('<tool_call>\n{"name": "calc', NATIVE_FORMATS, "truncated", ["string"]),
    ("<tool_call>\n", NATIVE_FORMATS, "truncated", ["<tool_call>"]),
    ('```json\n{\n  "name": "calculator",\n  "arguments": {\n    "expression": "1234', NATIVE_FORMATS, "truncated", []),
    ('```json\n{\n  "name": "calculator",\n  "arguments": {"expression": "1"}\n```', NATIVE_FORMATS, "truncated", []),
    ('```json\n{\n  "arg', NATIVE_FORMATS, "truncated", []),
    ('{"name": "calculator", "arguments": {"expression": "1234 * 56', NATIVE_FORMATS, "truncated", []),
    ('{"name": "calculator", "arguments": {"expression": "12"}', NATIVE_FORMATS, "truncated", []),
    ('{"name": "calculator", "arguments": {"limit": tr', NATIVE_FORMATS, "truncated", []),
    ('```tool_call\n{"name": "calculator", "arguments": {"expr', ["tool_call_fence"], "truncated", ["```tool_call"]),
    ('<tool_call>\n{"name": "calculator", "arguments": {"expression": 1234 * 5678}}\n</tool_call>', NATIVE_FORMATS,
     "malformed_json", ["line 1, column 57", "double quotes"]),
    ("<tool_call>{'name': 'calculator', 'arguments': {}}</tool_call>", NATIVE_FORMATS, "malformed_json",
     ["line 1, column 2", "double quotes"]),
    ('<tool_call>\n{\n  "name": "calculator"\n  "arguments": {}\n}\n</tool_call>', NATIVE_FORMATS, "malformed_json",
     ["line 3, column 3"]),
    ("<tool_call>calculator 1234 * 5678</tool_call>", NATIVE_FORMATS, "malformed_json", ["JSON object"]),
    ("<tool_call></tool_call>", NATIVE_FORMATS, "malformed_json", ["empty"]),
    ("{'name': 'calculator', 'arguments': {'expression': '2 + 2'}}", NATIVE_FORMATS, "malformed_json", ["double quotes"]),
    ('{"name": "calculator", "arguments": {"expression": "2" "3"}}', NATIVE_FORMATS, "malformed_json", ["column"]),
    ('```tool_call\n{"name": calculator}\n```', ["tool_call_fence"], "malformed_json", ["```tool_call"]),
    ('<tool_call>{"arguments": {"expression": "2"}}</tool_call>', NATIVE_FORMATS, "missing_name", ['"name"']),
    ('<tool_call>{"name": 42, "arguments": {}}</tool_call>', NATIVE_FORMATS, "missing_name", ['"name"']),
    ('<tool_call>{"name": "", "arguments": {}}</tool_call>', NATIVE_FORMATS, "missing_name", ['"name"']),
    ('{"name": null, "arguments": {"expression": "2"}}', NATIVE_FORMATS, "missing_name", ['"name"']),
    ('```tool_call\n{"arguments": {}}\n```', ["tool_call_fence"], "missing_name", ['"name"']),
    ('<tool_call>{"name": "calculator", "arguments": ["1234 * 5678"]}</tool_call>', NATIVE_FORMATS, "bad_arguments",
     ["JSON object", "a list"]),
    ('<tool_call>{"name": "calculator", "arguments": "1234 * 5678"}</tool_call>', NATIVE_FORMATS, "bad_arguments",
     ["not valid JSON"]),
    ('<tool_call>{"name": "calculator", "arguments": "[1, 2]"}</tool_call>', NATIVE_FORMATS, "bad_arguments", ["a list"]),
    ('{"name": "calculator", "arguments": 7}', NATIVE_FORMATS, "bad_arguments", ["a number"]),
    ('{"type": "function", "function": {"name": "calculator", "arguments": true}}', NATIVE_FORMATS, "bad_arguments",
     ["true/false"]),
    ("<call calculator>1234 * 5678", ["call_tag"], "truncated", ["</call>"]),
    ("<call calculator>1 + 1 <call calculator>2 + 2</call>", ["call_tag"], None, []),
    ("<call>1 + 1</call>", ["call_tag"], "missing_name", ["name"]),
    ("<call calculator>{'expression': '1'}</call>", ["call_tag"], "malformed_json", ["double quotes"]),
    ('calculator("1234 * 5678"', ["python"], "truncated", ["')'"]),
    ('search_rhymes("a", 1, 2)', ["python"], "too_many_arguments", ["takes 2 arguments (query, limit)", "3 were given"]),
    ('calculator("a", "b")', ["python"], "too_many_arguments", ["takes 1 argument (expression)"]),
    ('search_rhymes(q="sheep")', ["python"], "unknown_parameter", ["'q'", "query, limit"]),
    ('search_rhymes("sheep", query="lamb")', ["python"], "bad_call", ["two values"]),
    ('search_rhymes(query="a", query="b")', ["python"], "bad_call", ["two values"]),
    ('calculator("1" "2" 3)', ["python"], "bad_call", ["not a valid Python call"]),
    ("calculator(expression=)", ["python"], "bad_call", ["not a valid Python call"]),
]


@pytest.mark.parametrize("text, formats, kind, words", BROKEN)
def test_failed_attempts_are_errors_with_helpful_messages(text, formats, kind, words):
    result = parse(text, formats)
    if kind is None:  # the unclosed first tag, then a good call
        assert [e.kind for e in result.errors] == ["truncated"]
        assert [c.arguments for c in result.calls] == [{"expression": "2 + 2"}]
        return
    error = only_error(result)
    assert error.kind == kind
    for word in words:
        assert word in error.message, error.message
    assert result.found


def test_truncated_json_error_spans_to_the_end():
    text = 'Let me compute.\n{"name": "calculator", "arguments": {"expression": "1234 * 56'
    error = only_error(parse(text, NATIVE_FORMATS))
    assert (error.kind, error.format, error.end) == ("truncated", "json", len(text))
    assert error.raw.startswith('{"name"')


def test_a_broken_fence_does_not_swallow_what_follows():
    text = ('```json\n{"name": "calculator", "arguments": {"expression": "1\n```\n'
            'Retrying: {"name": "calculator", "arguments": {"expression": "1"}}')
    result = parse(text, NATIVE_FORMATS)
    assert [e.kind for e in result.errors] == ["truncated"]
    assert [c.arguments for c in result.calls] == [{"expression": "1"}]
    assert result.prose == "Retrying:"


NOT_CALLS = [
    "The answer is 7006652.",
    'The settings are {"debug": true, "level": 3}.',
    '{"name": "Mary", "age": 3}',
    '{"arguments": ["for", "against"]}',
    "A JSON example: {} and {{}} and {\"a\": [}",
    '```json\n{"rhymes": ["Baa, Baa, Black Sheep"]}\n```',
    # a tool description echoed back is not a call
    json.dumps(SCHEMAS[0]),
    json.dumps(SCHEMAS[0]["function"]),
    # python-style: definitions, attributes, longer names, unknown names, a name without a call
    "def calculator(expression: str) -> str: ...",
    "math.calculator(2)",
    "my_calculator(2)",
    "print(2 + 2)",
    "The calculator tool (a helper) adds numbers.",
    "</tool_call> stray closing tag",
    "</call> stray closing tag",
]


@pytest.mark.parametrize("text", NOT_CALLS)
def test_other_text_is_prose(text):
    result = parse(text, FORMATS)
    assert not result.found, (result.calls, result.errors)
    assert result.prose == text.strip()


def test_python_and_call_tag_need_tools():
    for text in ['calculator("2 + 2")', "<call calculator>2 + 2</call>"]:
        assert not parse(text, FORMATS, tools=None).found
        assert only_call(parse(text, FORMATS, tools=TOOLS)).name == "calculator"


NO_ARGUMENTS_TOOL = {"type": "function", "function": {"name": "list_files", "description": "List the files.",
                                                      "parameters": {"type": "object", "properties": {}}}}


def test_tools_without_parameters():
    tools = TOOLS + [NO_ARGUMENTS_TOOL]
    assert only_call(parse("<call list_files></call>", ["call_tag"], tools)).arguments == {}
    assert only_call(parse("list_files()", ["python"], tools)).arguments == {}
    assert only_call(parse('{"name": "list_files"}', ["json"], tools)).arguments == {}
    assert only_error(parse("<call list_files>everything</call>", ["call_tag"], tools)).kind == "too_many_arguments"
    assert only_error(parse('list_files("everything")', ["python"], tools)).kind == "too_many_arguments"
    assert only_error(parse("list_files(path='/')", ["python"], tools)).kind == "unknown_parameter"


def test_tools_may_be_functions_or_schemas():
    for tools in (TOOLS, SCHEMAS, [{"name": "calculator", "description": "", "inputSchema": SCHEMAS[0]["function"]["parameters"]}]):
        assert only_call(parse('calculator("1")', ["python"], tools=tools)).arguments == {"expression": "1"}


# --------------------------------------------------------------------------- python-style calls never run code

NOT_LITERAL = [
    'calculator(__import__("os").system("echo hi"))',
    "calculator(expression=open('/etc/passwd').read())",
    "calculator(x)",
    "calculator(expression=x)",
    "calculator(1234 * 5678)",
    'calculator(f"{1 + 1}")',
    "calculator([i for i in range(10)])",
    "calculator(lambda: 1)",
    "calculator(eval('1'))",
    "calculator(os.environ)",
    "calculator(*args)",
    "search_rhymes(**{'query': 'a'})",
    "search_rhymes(**options)",
    "calculator((x := 2))",
    "calculator({1, 2})",
    "calculator(b'bytes')",
    "calculator(1j)",
    'calculator("9" * 10**9)',
    "calculator(10**10**10)",
]


@pytest.mark.parametrize("text", NOT_LITERAL)
def test_python_calls_with_code_are_refused(text):
    error = only_error(parse(text, ["python"]))
    assert error.kind == "not_literal"
    assert "never evaluates code" in error.message or "`**`" in error.message


def test_refused_code_is_never_executed(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    ran: list[str] = []
    monkeypatch.setattr(os, "system", lambda command: ran.append(command) or 0)
    texts = [f'calculator(__import__("os").system("touch {marker}"))',
             f'calculator(expression=open("{marker}", "w").write("x"))',
             f'```python\ncalculator(__import__("pathlib").Path("{marker}").touch())\n```']
    for text in texts:
        for formats in (FORMATS, ["python"]):
            result = parse(text, formats)
            assert not result.calls and [e.kind for e in result.errors] == ["not_literal"]
    assert ran == []
    assert not marker.exists()


# --------------------------------------------------------------------------- formats together

def test_tags_and_json_do_not_count_a_call_twice():
    result = parse(TAGGED, NATIVE_FORMATS)
    call = only_call(result)
    assert call.format == "qwen" and call.raw == TAGGED
    truncated = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "12'
    assert only_error(parse(truncated, NATIVE_FORMATS)).format == "qwen"


def test_json_alone_finds_the_object_inside_tags():
    call = only_call(parse(TAGGED, ["json"]))
    assert call.format == "json" and call.arguments == MULTIPLY


def test_all_formats_on_drifted_text():
    text = (
        "I asked for JSON but got several kinds of call.\n"
        'First, python: calculator(expression="1234 * 5678")\n'
        'Then bare JSON: {"name": "search_rhymes", "arguments": {"query": "sheep"}}\n'
        "Then a tag: <call calculator>2 + 2</call>\n"
        '<tool_call>\n{"name": "calculator", "arguments": {"expression": "3 * 3"}}\n</tool_call>\n'
        'And a tool_call fence that never closes:\n```tool_call\n{"name": "search_rhymes", "arguments": {"query": "star", "limit": 1}}'
    )
    result = parse(text, FORMATS)
    assert not result.errors
    assert [(c.format, c.name, c.arguments) for c in result.calls] == [
        ("python", "calculator", MULTIPLY),
        ("json", "search_rhymes", {"query": "sheep"}),
        ("call_tag", "calculator", {"expression": "2 + 2"}),
        ("qwen", "calculator", {"expression": "3 * 3"}),
        ("tool_call_fence", "search_rhymes", {"query": "star", "limit": 1}),
    ]
    assert result.prose == ("I asked for JSON but got several kinds of call.\nFirst, python:\nThen bare JSON:\n"
                            "Then a tag:\nAnd a tool_call fence that never closes:")


def test_tool_call_fence_json_without_the_fence_is_found_by_json():
    text = 'I will call the tool.\n{"name": "calculator", "arguments": {"expression": "5 - 3"}}'
    call = only_call(parse(text, FORMATS))
    assert (call.format, call.arguments) == ("json", {"expression": "5 - 3"})


def test_a_json_string_mentioning_a_tool_is_not_a_python_call():
    text = '{"name": "calculator", "arguments": {"expression": "calculator(2)"}}'
    assert only_call(parse(text, FORMATS)).format == "json"


def test_a_call_tag_body_is_not_a_python_call():
    call = only_call(parse("<call calculator>calculator(2)</call>", FORMATS))
    assert (call.format, call.arguments) == ("call_tag", {"expression": "calculator(2)"})


def test_formats_argument():
    assert parse(TAGGED, "qwen").calls[0].format == "qwen"
    assert not parse(TAGGED, []).found
    with pytest.raises(ValueError, match="Unknown tool-call format"):
        parse_tool_calls(TAGGED, ["xml"])


def test_to_message_call_has_the_template_shape():
    call = only_call(parse('<tool_call>{"name": "calculator", "arguments": "{\\"expression\\": \\"2\\"}"}</tool_call>'))
    message_call = call.to_message_call()
    assert message_call == {"type": "function", "function": {"name": "calculator", "arguments": {"expression": "2"}}}
    message_call["function"]["arguments"]["expression"] = "changed"
    assert call.arguments == {"expression": "2"}


# --------------------------------------------------------------------------- prose

PROSE = [
    ("Let me work it out.\n" + TAGGED, "Let me work it out."),
    (TAGGED + "\nThat is the call.", "That is the call."),
    ("Before.\n\n" + TAGGED + "\n\n" + TAGGED + "\n\nAfter.", "Before.\n\nAfter."),
    ("Sure!\n" + FENCED_JSON_15B + "\nI will wait for the result.", "Sure!\nI will wait for the result."),
    ("I will call `calculator(\"2 + 2\")` now.", "I will call now."),
    ("Call: " + BARE_JSON_05B + " done", "Call: done"),
    ('```python\ncalculator("1")\n```\nand\n```python\nsearch_rhymes("a")\nprint(1)\n```',
     'and\n```python\nprint(1)\n```'),
    ("  \n" + TAGGED + "\n  ", ""),
    ('<tool_call>{"name": "a", "arguments": {"x": 1</tool_call> Sorry, let me fix that.', "Sorry, let me fix that."),
    ("No calls here.\n\nJust   text with   spaces.", "No calls here.\n\nJust   text with   spaces."),
]


@pytest.mark.parametrize("text, prose", PROSE)
def test_prose_is_the_text_without_calls(text, prose):
    assert parse(text, FORMATS).prose == prose


# --------------------------------------------------------------------------- hostile input

HOSTILE = [
    "",
    " \n\t ",
    "{" * 100_000,
    "}" * 10_000 + "{" * 10_000,
    '{"a":' * 5_000 + "1" + "}" * 5_000,
    '{"name": "f", "arguments": ' + '{"a":' * 5_000 + "1" + "}" * 5_001,
    '<tool_call>{"name": "f", "arguments": ' + "[" * 5_000 + "]" * 5_000 + "}</tool_call>",
    "<tool_call>" * 20_000,
    "</tool_call>" * 10_000,
    "<tool_call>{" * 10_000,
    "```" * 10_000,
    "```json\n{" * 5_000,
    "calculator(" * 10_000,
    "calculator(" + "(" * 300 + ")" * 301,
    "calculator(" + "[" * 3_000 + "]" * 3_000 + ")",
    "calculator(" + "-" * 100_000 + "1)",
    "calculator(" + "9" * 10_000 + ")",
    '{"name": "f", "arguments": {"n": ' + "9" * 10_000 + "}}",
    "<call calculator>" * 10_000,
    "<call " + " " * 50_000 + "calculator>1</call>",
    '"\\' * 50_000 + "calculator(" + '"\\' * 50_000,
    "calculator(\"" + "\\\"" * 50_000,
    "search_rhymes(query='" + "x" * 200_000,
    "\x00\ud7ff\ue000\U0010ffff\u202e<tool_call>\u2028{\"name\": \"\u0000\", \"arguments\": {}}</tool_call>",
    "🙂" * 1000 + BARE_JSON_05B + "\u200b" * 1000,
    "calculator(\u00a0'2'\u00a0)",
    '{"name": "f", "arguments": {"x": NaN, "y": -Infinity}}',
    "x" * 1_000_000 + BARE_JSON_05B,
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_never_raises(text):
    started = time.perf_counter()
    parse(text, FORMATS)
    parse(text, NATIVE_FORMATS)
    assert time.perf_counter() - started < 5


def test_huge_reply_with_many_calls_stays_fast():
    text = "\n".join([TAGGED, BARE_JSON_05B, 'calculator("1")', "<call calculator>1</call>"] * 2_000)
    started = time.perf_counter()
    result = parse(text, FORMATS)
    assert len(result.calls) == 8_000 and not result.errors
    assert time.perf_counter() - started < 5


# --------------------------------------------------------------------------- properties (hypothesis)

FRAGMENTS = [
    "<tool_call>", "</tool_call>", "{", "}", "[", "]", '"name"', '"arguments"', '"parameters"', '"type"',
    '"function"', ":", ",", '"', "'", "\\", "```", "```json\n", "```tool_call\n", "```python\n", "json", "tool_call",
    "(", ")", "<call x>", "<call calculator>", "<call>", "</call>", "calculator", "search_rhymes", "calculator(",
    "search_rhymes(", "query=", "expression=", "limit=", "=", "*", "**", "0", "7", "1234", "-", ".", "e", "true",
    "null", " ", "\n", "\t", "`", "def ", "__import__", "é", "\u2028", "\x00", "🙂", '"calculator"', '"f"',
]
fragment_mix = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=60).map("".join)

PROPERTY_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=RANDOM_TEXT_EXAMPLES, **PROPERTY_SETTINGS)
@given(st.text())
def test_any_text_gives_a_sound_result(text):
    check_invariants(text, parse_tool_calls(text, FORMATS, tools=SCHEMAS))


@settings(max_examples=FRAGMENT_MIX_EXAMPLES, **PROPERTY_SETTINGS)
@given(fragment_mix, st.sampled_from([FORMATS, NATIVE_FORMATS, ("python", "call_tag"), ("tool_call_fence", "json")]))
def test_call_like_fragments_give_a_sound_result(text, formats):
    check_invariants(text, parse_tool_calls(text, formats, tools=SCHEMAS))


prose_text = st.text(st.characters(blacklist_characters="{}[]()<>`\"'\\", blacklist_categories=("Cs",)), max_size=40)


def no_backticks(max_size: int) -> st.SearchStrategy[str]:
    # A string holding ``` would end a Markdown fence early, for a Markdown reader as for the parser.
    return st.text(st.characters(blacklist_characters="`", blacklist_categories=("Cs",)), max_size=max_size)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**9, 10**9) | st.floats(allow_nan=False, allow_infinity=False)
    | no_backticks(20),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(no_backticks(5), children, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(no_backticks(8), json_values, max_size=4)


def render(fmt: str, name: str, args: dict) -> str:
    call = {"name": name, "arguments": args}
    return {
        "qwen": f"<tool_call>\n{json.dumps(call, ensure_ascii=False)}\n</tool_call>",
        "json": json.dumps(call, ensure_ascii=False),
        "json_fence": f"```json\n{json.dumps(call, indent=2)}\n```",
        "tool_call_fence": f"```tool_call\n{json.dumps(call)}\n```",
    }[fmt]


@settings(max_examples=ROUND_TRIP_EXAMPLES, **PROPERTY_SETTINGS)
@given(st.sampled_from(["qwen", "json", "json_fence", "tool_call_fence"]), st.sampled_from(["calculator", "search_rhymes", "other"]),
       arguments, prose_text, prose_text)
def test_a_written_call_is_read_back(fmt, name, args, before, after):
    text = f"{before}\n{render(fmt, name, args)}\n{after}"
    result = parse_tool_calls(text, FORMATS, tools=SCHEMAS)
    check_invariants(text, result)
    call = only_call(result)
    assert (call.name, call.arguments) == (name, args)
    assert call.format == {"json_fence": "json"}.get(fmt, fmt)
    assert result.prose.split() == f"{before} {after}".split()


@settings(max_examples=ROUND_TRIP_EXAMPLES, **PROPERTY_SETTINGS)
@given(st.text(st.characters(blacklist_characters="{<", blacklist_categories=("Cs",)), max_size=30),
       st.integers(-1000, 1000), st.booleans(),
       prose_text, prose_text)
def test_a_python_call_is_read_back(query, limit, positional, before, after):
    source = f"search_rhymes({query!r}, {limit!r})" if positional else f"search_rhymes(limit={limit!r}, query={query!r})"
    text = f"{before} {source} {after}"
    result = parse_tool_calls(text, FORMATS, tools=SCHEMAS)
    check_invariants(text, result)
    call = only_call(result)
    assert (call.format, call.arguments) == ("python", {"query": query, "limit": limit})


# Where a cut-off call becomes recognisable as one in each rendering.
CALL_OPENING = {"qwen": "<tool_call>", "json": '{"name":', "json_fence": "```json\n{", "tool_call_fence": "```tool_call\n"}


@settings(max_examples=TRUNCATION_EXAMPLES, **PROPERTY_SETTINGS)
@given(st.sampled_from(sorted(CALL_OPENING)), arguments, st.data())
def test_a_call_cut_anywhere_is_truncated_until_complete(fmt, args, data):
    whole = render(fmt, "calculator", args)
    cut = data.draw(st.integers(len(CALL_OPENING[fmt]), len(whole)), label="cut")
    text = whole[:cut]
    result = parse_tool_calls(text, FORMATS, tools=SCHEMAS)
    check_invariants(text, result)
    obj_end = json.JSONDecoder().raw_decode(whole, whole.index("{"))[1]
    if cut >= obj_end:
        assert only_call(result).arguments == args
    else:
        assert only_error(result).kind == "truncated"
