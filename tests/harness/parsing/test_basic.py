"""Tests of `kitchen.harness.parsing.basic`: the plain tags-and-json.loads parser chapter 04 types out."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kitchen.harness.parsing.basic import TAG_CLOSE, TAG_OPEN, parse_basic
from kitchen.harness.parsing import parse_tool_calls

CALL = '<tool_call>{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}</tool_call>'
MULTIPLY = ("calculator", {"expression": "1234 * 5678"})


def test_a_good_call() -> None:
    assert parse_basic(CALL) == ([MULTIPLY], [])


def test_text_around_and_between_calls() -> None:
    text = f"Let me work it out.\n{CALL}\nand then\n{CALL.replace('1234', '4321')}\nDone."
    calls, errors = parse_basic(text)
    assert calls == [MULTIPLY, ("calculator", {"expression": "4321 * 5678"})]
    assert errors == []


def test_no_tags_no_calls_no_errors() -> None:
    assert parse_basic("The answer is 7006652.") == ([], [])
    # A bare JSON call is not a call to the plain parser (the robust one reads it).
    bare = '{"name": "calculator", "arguments": {}}'
    assert parse_basic(bare) == ([], [])
    assert parse_tool_calls(bare).calls[0].name == "calculator"


def test_bad_json_is_reported_with_the_decoder_reason_and_place() -> None:
    calls, errors = parse_basic('<tool_call>\n{"name": "f", arguments: {}}\n</tool_call>')
    assert calls == []
    assert errors == ["block 1 is not valid JSON: Expecting property name enclosed in double "
                      "quotes at line 2, column 15"]


def test_missing_or_non_string_name() -> None:
    for body in ('{"arguments": {}}', '{"name": 3, "arguments": {}}'):
        assert parse_basic(f"<tool_call>{body}</tool_call>") == (
            [], ['block 1 has no string "name"'])


def test_arguments_must_be_an_object() -> None:
    bodies = ('{"name": "f"}', '{"name": "f", "arguments": [1]}',
              '{"name": "f", "arguments": "{}"}')
    for body in bodies:
        assert parse_basic(f"<tool_call>{body}</tool_call>") == (
            [], ['block 1 has no object "arguments"'])


def test_a_block_that_is_not_an_object() -> None:
    assert parse_basic("<tool_call>[1, 2]</tool_call>") == (
        [], ["block 1 holds an array, not a JSON object"])
    assert parse_basic("<tool_call>null</tool_call>")[1] == [
        "block 1 holds null, not a JSON object"]


def test_good_and_bad_blocks_are_numbered_in_order() -> None:
    text = f"{CALL} <tool_call>oops</tool_call> {CALL}"
    calls, errors = parse_basic(text)
    assert calls == [MULTIPLY, MULTIPLY]
    assert len(errors) == 1 and errors[0].startswith("block 2 is not valid JSON")


def test_an_unclosed_block_is_reported_once() -> None:
    calls, errors = parse_basic(CALL + ' <tool_call>{"name": "f", "argu')
    assert calls == [MULTIPLY]
    assert errors == ["block 2 is never closed with </tool_call>"]


def test_other_markers_such_as_the_chapter_fence() -> None:
    text = 'Sure.\n```tool_call\n{"name": "f", "arguments": {"x": 1}}\n```\n'
    assert parse_basic(text, "```tool_call", "```") == ([("f", {"x": 1})], [])


def test_hostile_bodies_do_not_raise() -> None:
    deep = TAG_OPEN + "[" * 100_000 + "]" * 100_000 + TAG_CLOSE
    assert parse_basic(deep)[1] == ["block 1 is not valid JSON: RecursionError"]
    huge = TAG_OPEN + '{"name": "f", "arguments": {"n": ' + "9" * 50_000 + "}}" + TAG_CLOSE
    assert parse_basic(huge)[1] == ["block 1 is not valid JSON: ValueError"]
    assert parse_basic(None) == ([], ["expected text, got NoneType"])  # type: ignore[arg-type]


def test_many_openers_and_no_closer_stay_fast() -> None:
    calls, errors = parse_basic(TAG_OPEN * 200_000)
    assert calls == [] and errors == ["block 1 is never closed with </tool_call>"]


FRAGMENTS = st.sampled_from([TAG_OPEN, TAG_CLOSE, "{", "}", '"name"', '"arguments"', ":", ",",
                             '"f"', "[", "]", "null", "1", " ", "\n", "text", '\\"', "```"])


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(FRAGMENTS, max_size=40).map("".join)))
def test_never_raises_on_junk(text: str) -> None:
    calls, errors = parse_basic(text)
    assert len(calls) + len(errors) <= text.count(TAG_OPEN)
    for name, arguments in calls:
        assert isinstance(name, str) and isinstance(arguments, dict)
    assert all(isinstance(e, str) and e.startswith("block ") for e in errors)


@settings(max_examples=200, deadline=None)
@given(name=st.text(min_size=1, max_size=20).filter(lambda t: TAG_CLOSE not in t),
       arguments=st.dictionaries(st.text(max_size=10), st.integers() | st.text(max_size=10),
                                 max_size=4),
       before=st.text(max_size=30).filter(lambda t: TAG_OPEN not in t),
       after=st.text(max_size=30))
def test_a_written_call_is_read_back(name: str, arguments: dict, before: str, after: str
                                     ) -> None:
    body = json.dumps({"name": name, "arguments": arguments})
    calls, errors = parse_basic(f"{before}{TAG_OPEN}\n{body}\n{TAG_CLOSE}{after}")
    assert calls[0] == (name, arguments)
