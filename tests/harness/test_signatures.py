"""A tool's schema read for a prompt (`kitchen.harness.signatures`): types in words or Python,
signatures, entries, docstrings and example values."""

from __future__ import annotations

import ast

from kitchen.harness.protocols import PythonCallProtocol
from kitchen.harness.signatures import (example_arguments, example_value, plain_parameter, python_docstring,
                                        python_literal, python_signature, python_type, tool_entry,
                                        type_words)
from kitchen.tools import TOY_TOOLS
from kitchen.tools.schemas import tool_schema

SCHEMAS = [tool_schema(f) for f in TOY_TOOLS]


def test_schema_text_pieces() -> None:
    rhymes = next(s for s in SCHEMAS if s["function"]["name"] == "search_rhymes")
    assert python_signature(rhymes) == "def search_rhymes(query: str, limit: int | None = None):"
    assert tool_entry(rhymes).startswith("### search_rhymes\n")
    assert python_type({"type": ["string", "null"]}) == "str | None"
    assert python_literal([1.5, False, {"k": None}]) == '[1.5, False, {"k": None}]'
    assert type_words({"type": "array", "items": {"type": "integer"}}) == "array of integer"
    assert list(example_arguments(rhymes)) == ["query"]


def test_a_required_parameter_after_an_optional_one_makes_a_legal_signature():
    schema = {"type": "function", "function": {"name": "f", "description": "F.", "parameters": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "array", "items": {"type": "string"}}},
        "required": ["b"]}}}
    signature = PythonCallProtocol().signature(schema)
    assert signature == "def f(*, a: int | None = None, b: list[str]):"
    ast.parse(signature + " ...")


SHOUT = {"type": "function", "function": {"name": "shout", "description": 'Say """hi""" loudly.', "parameters": {
    "type": "object", "properties": {"times": {"type": "integer", "default": 3, "description": "How many."},
                                     "word": {"type": ["string", "null"]}}}}}


def test_a_default_is_written_and_a_union_with_null_gets_no_second_none() -> None:
    assert python_signature(SHOUT) == "def shout(times: int = 3, word: str | None = None):"


def test_an_example_value_prefers_examples_then_enum_default_and_the_description() -> None:
    prop = {"type": "string", "examples": ["x"], "enum": ["a"], "default": "d", "description": 'e.g. "q"'}
    picked = []
    for key in ("examples", "enum", "default", "description"):
        picked.append(example_value(prop))
        prop = {k: v for k, v in prop.items() if k != key}
    assert picked == ["x", "a", "d", "q"]
    assert [example_value({"type": t}) for t in ("integer", "boolean", "array", "string")] == [1, True, [], "..."]


def test_without_a_required_parameter_the_example_fills_the_first() -> None:
    assert example_arguments(SHOUT) == {"times": 3}
    assert plain_parameter(SHOUT) == "times"


def test_a_docstring_escapes_triple_quotes_and_marks_optional_parameters() -> None:
    docstring = python_docstring(SHOUT)
    source = f"def shout():\n{docstring}\n"
    assert ast.get_docstring(ast.parse(source).body[0]).startswith('Say """hi""" loudly.')
    assert "times: (optional) How many." in docstring


def test_a_tool_without_parameters_or_description_still_has_an_entry() -> None:
    bare = {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}
    assert tool_entry(bare) == "### now\n(no description)\nArguments: none."
    assert type_words({"type": ["string", "null"], "enum": ["a", None]}) == 'string or null, one of "a", null'
