"""Tests of the parts of `kitchen.harness.parsing` one by one, and of `kitchen.harness.signatures`.

`tests/test_parsing.py` tests the parser as a whole through `parse_tool_calls`; these pin down
what each module of the package owns, so that a change inside one shows where it broke.
"""

from __future__ import annotations


import pytest

from kitchen.harness.parsing import FORMATS, ParseError, ToolCall, parse_tool_calls
from kitchen.harness.parsing.formats import SCANNERS
from kitchen.harness.parsing.hits import Context, ScanVerdict, make_hit
from kitchen.harness.parsing.json_calls import read_call_object
from kitchen.harness.parsing.merging import PRIORITY, merge, non_overlapping, prose
from kitchen.harness.parsing.scanning import (BadJSON, Finder, decode, find_fences, incomplete, short,
                                      where)
from kitchen.harness.parsing.known_tools import Tool, bare_value_parameter, read_tools
from kitchen.harness.protocols import CallTagProtocol, plain_parameter
from kitchen.harness.signatures import (example_arguments, python_literal, python_signature,
                                 python_type, tool_entry, type_words)
from kitchen.tools.schemas import tool_schema
from kitchen.tools import TOY_TOOLS

SCHEMAS = [tool_schema(f) for f in TOY_TOOLS]


def schema(properties: list[str], required: list[str]) -> dict:
    return {"type": "function", "function": {"name": "t", "description": "", "parameters": {
        "type": "object", "properties": {p: {"type": "string"} for p in properties},
        "required": required}}}


# --------------------------------------------------------------------------- scanning

def test_fences_pair_in_order_and_the_last_may_stay_open() -> None:
    text = "a ```json\n{}\n``` b ```tool_call\n{"
    fences = find_fences(text)
    assert [(f.lang, f.closed) for f in fences] == [("json", True), ("tool_call", False)]
    assert text[fences[0].body_start:fences[0].body_end] == "{}\n"
    assert fences[1].end == len(text)


def test_decode_reads_a_long_value_past_its_first_window() -> None:
    text = "x" * 300 + ' {"n": ' + "1" * 600 + "}"
    value, end = decode(text, 301)
    assert value == {"n": int("1" * 600)} and end == len(text)


def test_a_decode_failure_knows_whether_the_text_only_ran_out() -> None:
    for text in ('{"a": "abc', '{"a": tru', '{"a": 12'):
        bad = decode(text, 0)
        assert isinstance(bad, BadJSON) and incomplete(bad, text, len(text))
    bad = decode('{"a": x}', 0)
    assert isinstance(bad, BadJSON) and not incomplete(bad, '{"a": x}', 8)
    deep = decode("[" * 5000 + "]" * 5000, 0)
    assert deep == BadJSON("it is nested too deeply", 0, False)


def test_finder_answers_growing_positions() -> None:
    finder = Finder("a</x>b</x>", "</x>")
    assert [finder.next(0), finder.next(1), finder.next(2), finder.next(7)] == [1, 1, 6, -1]


def test_positions_and_quotes_for_messages() -> None:
    assert where("ab\ncd", 0, 4) == "line 2, column 2"
    assert short("a  b\n c" + "x" * 100, 10) == "a b cxx..."


# --------------------------------------------------------------------------- tool_table

def test_the_tool_table_keeps_names_parameters_and_required_in_order() -> None:
    table = read_tools(SCHEMAS)
    assert set(table) == {s["function"]["name"] for s in SCHEMAS}
    rhymes = table["search_rhymes"]
    assert rhymes == Tool("search_rhymes", ("query", "limit"), ("query",))
    assert read_tools(None) == {}


@pytest.mark.parametrize("properties, required, expected", [
    (["a"], [], "a"), (["a", "b"], ["b"], "b"), (["a", "b"], ["a", "b"], "a"), ([], [], None)])
def test_one_rule_for_the_parameter_a_bare_value_fills(properties: list[str],
                                                       required: list[str],
                                                       expected: str | None) -> None:
    assert bare_value_parameter(properties, required) == expected
    tool = schema(properties, required)
    assert plain_parameter(tool) == expected
    if expected is not None:  # the parser places a bare <call> body where the protocol writes it
        call = parse_tool_calls("<call t>hello</call>", ["call_tag"], [tool])
        assert call.calls[0].arguments == {expected: "hello"}
        written = CallTagProtocol().write_call(tool, {expected: "hello"})
        assert written == "<call t>hello</call>"


# --------------------------------------------------------------------------- json_calls, hits

def test_reading_a_call_object() -> None:
    openai = {"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    assert read_call_object(openai, strict=False, tools={}) == ScanVerdict("call", "f", {"x": 1})
    assert read_call_object({"name": "f"}, strict=False, tools={}) is None
    known = {"f": Tool("f", (), ())}
    assert read_call_object({"name": "f"}, strict=False, tools=known) == ScanVerdict("call", "f", {})
    assert read_call_object([1], strict=True, tools={}).kind == "missing_name"
    bad = read_call_object({"name": "f", "arguments": [1]}, strict=True, tools={})
    assert bad.kind == "bad_arguments" and "must be a JSON object" in bad.message


def test_a_verdict_becomes_a_call_or_an_error_over_its_span() -> None:
    ctx = Context("say f() now", {}, [], 11)
    assert make_hit(ctx, "python", ScanVerdict("call", "f", None), 4, 7) == \
        ToolCall("f", {}, "python", "f()", 4, 7)
    error = make_hit(ctx, "python", ScanVerdict("bad_call", message="no"), 4, 7)
    assert error == ParseError("bad_call", "no", "f()", "python", 4, 7)


# --------------------------------------------------------------------------- formats, merging

def test_every_format_has_a_scanner_and_a_place_in_the_order() -> None:
    assert set(SCANNERS) == set(FORMATS) == set(PRIORITY)


def test_the_named_formats_need_known_tools() -> None:
    for fmt in ("python", "call_tag"):
        ctx = Context('calculator("2") <call calculator>2</call>', {}, [], 40)
        assert SCANNERS[fmt](ctx) == []


def test_merge_keeps_priority_but_a_call_beats_failed_attempts() -> None:
    tags = ParseError("truncated", "", "", "qwen", 0, 10)
    call = ToolCall("f", {}, "json", "", 2, 8)
    assert merge([tags], [call]) == [call]
    kept = ToolCall("g", {}, "qwen", "", 0, 10)
    assert merge([kept], [call]) == [kept]
    assert non_overlapping([call, ToolCall("h", {}, "json", "", 3, 9), tags]) == [tags]


def test_prose_closes_the_hole_a_call_leaves() -> None:
    assert prose("Sure.\nCALL\nDone.", [(6, 10)]) == "Sure.\nDone."
    assert prose("Sure. CALL", [(6, 10)]) == "Sure."


# --------------------------------------------------------------------------- schema_text

def test_schema_text_pieces() -> None:
    rhymes = next(s for s in SCHEMAS if s["function"]["name"] == "search_rhymes")
    assert python_signature(rhymes) == "def search_rhymes(query: str, limit: int | None = None):"
    assert tool_entry(rhymes).startswith("### search_rhymes\n")
    assert python_type({"type": ["string", "null"]}) == "str | None"
    assert python_literal([1.5, False, {"k": None}]) == '[1.5, False, {"k": None}]'
    assert type_words({"type": "array", "items": {"type": "integer"}}) == "array of integer"
    assert list(example_arguments(rhymes)) == ["query"]
