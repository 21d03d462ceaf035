"""What a `--structured` server adds to its tools (`kitchen.mcp.structured`): output schemas from
return annotations, the annotations table, closed input schemas, and the check of a structured
result (no server process: the functions and `KitchenServer`'s listing in this process)."""

from __future__ import annotations

import doctest
import importlib

import pytest
from typing_extensions import TypedDict

from kitchen.mcp.conventions import AGENT_ONLY_TOOLS, FAULT_TOOLS, STRUCTURED_TOOLS
from kitchen.mcp.more_tools import get_weather
from kitchen.mcp.server import KitchenServer
from kitchen.mcp.structured import TOOL_HINTS, output_schema, structured_problem, structured_view
from kitchen.tools import TOY_TOOLS, count_words
from kitchen.tools.rhymes import load_rhymes
from kitchen.tools.schemas import to_mcp, tool_schema

WORD_COUNTS = {
    "description": "What count_words found: words, non-blank lines and characters, and what was counted.",
    "properties": {"words": {"title": "Words", "type": "integer"}, "lines": {"title": "Lines", "type": "integer"},
                   "characters": {"title": "Characters", "type": "integer"}, "of": {"title": "Of", "type": "string"}},
    "required": ["words", "lines", "characters", "of"], "title": "WordCounts", "type": "object"}


class Pair(TypedDict):
    """Two numbers."""

    left: int
    right: float


def test_the_output_schema_comes_from_a_typeddict_return_annotation():
    assert output_schema(count_words) == WORD_COUNTS

    def pair() -> Pair: ...

    def text() -> str: ...

    def loose() -> dict: ...

    def unannotated(): ...

    assert output_schema(pair)["properties"] == {"left": {"title": "Left", "type": "integer"},
                                                 "right": {"title": "Right", "type": "number"}}
    assert [output_schema(fn) for fn in (text, loose, unannotated)] == [None, None, None]
    assert [fn.__name__ for fn in TOY_TOOLS if output_schema(fn)] == ["count_words"]


@pytest.mark.parametrize("arguments", [{"text": "one two three"}, {"text": "word " * 100}, {"text": "\n\n"}]
                         + [{"rhyme_title": rhyme["title"]} for rhyme in load_rhymes()])
def test_what_count_words_returns_fits_its_output_schema(arguments):
    assert structured_problem(output_schema(count_words), count_words(**arguments)) is None


def test_a_structured_problem_is_said_in_words():
    schema = output_schema(count_words)
    good = {"words": 3, "lines": 1, "characters": 13, "of": "one two three"}
    assert structured_problem(schema, good) is None
    assert structured_problem(schema, {**good, "words": "3"}) == "'3' is not of type 'integer' (at words)"
    assert structured_problem(schema, {"words": 3}) == "'lines' is a required property"
    assert structured_problem(schema, None) == "the tool declares an outputSchema but no structuredContent came back"
    assert structured_problem(schema, [good]) == "structuredContent must be a JSON object, not list"


def test_the_structured_view_closes_the_input_schema_and_adds_schema_and_hints():
    view = structured_view(to_mcp(tool_schema(count_words)), count_words)
    plain = to_mcp(tool_schema(count_words))
    assert view["inputSchema"] == {**plain["inputSchema"], "additionalProperties": False}
    assert view["outputSchema"] == WORD_COUNTS
    assert view["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert "additionalProperties" not in plain["inputSchema"]  # the plain view is left as it was
    unknown = {"name": "mystery", "description": "", "inputSchema": {"type": "object", "properties": {}}}
    assert "annotations" not in structured_view(unknown, get_weather)  # no hints for a tool not in the table


def test_every_tool_the_structured_server_can_offer_has_hints_and_one_is_destructive():
    kitchen = KitchenServer(structured=True, faults=True)
    names = [*kitchen.tools, get_weather.__name__]
    assert set(names) == set(TOOL_HINTS)
    assert set(STRUCTURED_TOOLS) <= set(names) and set(FAULT_TOOLS) <= set(names)
    destructive = [name for name, hints in TOOL_HINTS.items() if hints.get("destructiveHint")]
    assert sorted(destructive) == ["crash", "delete_file"]  # crash: the fault switch that ends the server
    for name, hints in TOOL_HINTS.items():
        if hints["readOnlyHint"]:  # the other two hints only mean something when a tool writes
            assert set(hints) == {"readOnlyHint", "openWorldHint"}, name
        else:
            assert set(hints) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}, name
    writers = {name for name, hints in TOOL_HINTS.items() if not hints["readOnlyHint"]}
    assert writers == {*AGENT_ONLY_TOOLS, "delete_file", "crash"}


def test_docstring_examples():
    result = doctest.testmod(importlib.import_module("kitchen.mcp.structured"))
    assert result.attempted >= 3 and result.failed == 0
