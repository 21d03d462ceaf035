"""The two formats found by tool name (`kitchen.harness.parsing.named_formats`): ``python`` calls
and ``<call name>`` tags."""

from __future__ import annotations

from kitchen.harness.parsing import ParseError, ToolCall
from kitchen.harness.parsing.formats import SCANNERS
from kitchen.harness.parsing.hits import Context
from kitchen.harness.parsing.known_tools import Tool
from kitchen.harness.parsing.named_formats import scan_call_tag, scan_python

TOOLS = {"search_rhymes": Tool("search_rhymes", ("query", "limit"), ("query",)),
         "now": Tool("now", (), ())}


def context(text: str, tools: dict[str, Tool] = TOOLS) -> Context:
    return Context(text, tools, [], len(text.rstrip()))


def test_the_named_formats_need_known_tools() -> None:
    for fmt in ("python", "call_tag"):
        ctx = Context('calculator("2") <call calculator>2</call>', {}, [], 40)
        assert SCANNERS[fmt](ctx) == []


def test_python_values_map_by_position_then_by_keyword() -> None:
    (call,) = scan_python(context('Try search_rhymes("star", limit=2) now'))
    assert isinstance(call, ToolCall) and call.arguments == {"query": "star", "limit": 2}
    assert call.raw == 'search_rhymes("star", limit=2)'


def test_python_calls_that_do_not_fit_the_tool_are_errors_of_their_own_kind() -> None:
    kinds = {text: scan_python(context(text))[0].kind for text in [
        'search_rhymes("a", 1, 2)', 'search_rhymes(qurey="a")', 'search_rhymes("a", query="b")',
        "search_rhymes(x)", 'search_rhymes("a"']}
    assert kinds == {'search_rhymes("a", 1, 2)': "too_many_arguments",
                     'search_rhymes(qurey="a")': "unknown_parameter",
                     'search_rhymes("a", query="b")': "bad_call",
                     "search_rhymes(x)": "not_literal",
                     'search_rhymes("a"': "truncated"}


def test_a_definition_or_an_attribute_is_not_a_call() -> None:
    assert scan_python(context('def search_rhymes(query): ...')) == []
    assert scan_python(context('library.search_rhymes("a")')) == []
    assert scan_python(context('my_search_rhymes("a")')) == []


def test_a_call_tag_body_is_json_arguments_a_quoted_string_or_the_bare_value() -> None:
    found = [h.arguments for h in scan_call_tag(context(
        '<call search_rhymes>{"query": "star", "limit": 1}</call> '
        '<call search_rhymes>"star"</call> <call search_rhymes>star light</call>'))]
    assert found == [{"query": "star", "limit": 1}, {"query": "star"}, {"query": "star light"}]


def test_broken_call_tags_are_errors_with_their_kind() -> None:
    def kind(text: str) -> str:
        (hit,) = scan_call_tag(context(text))
        assert isinstance(hit, ParseError)
        return hit.kind
    assert kind("<call search_rhymes>{'query': 'star'}</call>") == "malformed_json"
    assert kind("<call>star</call>") == "missing_name"
    assert kind("<call search_rhymes>star") == "truncated"
    assert kind("<call now>everything</call>") == "too_many_arguments"
