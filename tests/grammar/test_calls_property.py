"""Property: under a grammar built from any tool schema, a reply is a call that parses and validates.

Random schemas are drawn from the types the chat template renders (string, integer, number,
boolean, enum, nested object, array; required and optional fields), with strings, numbers and
arrays bounded so a reply can finish. A tiny random model writes the reply: it wants nothing in
particular, so only the grammar makes the call valid. (A random bigram model, `tests/tiny.py`: a
decode step costs well under a millisecond, so thousands of replies fit in the unit tests.) Each reply must finish within its token
budget, parse with the project's parser and validate with jsonschema.
"""

from collections import Counter

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kitchen.grammar.calls import call_grammar
from kitchen.harness.parsing import parse_tool_calls
from tiny import tiny_bigram_model

CASES = int(__import__("os").environ.get("KITCHEN_PROPERTY_CASES", 2000))
BUDGET = 160  # tokens per reply
DRAWN: Counter = Counter()
MODEL = tiny_bigram_model()
PROMPT = [{"role": "user", "content": "Call the tool."}]
NAMES = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True)


def leaf() -> st.SearchStrategy[dict]:
    return st.one_of(
        st.integers(1, 8).map(lambda n: {"type": "string", "maxLength": n}),
        st.integers(-50, 50).map(lambda lo: {"type": "integer", "minimum": lo, "maximum": lo + 100}),
        st.just({"type": "number", "minimum": 0, "maximum": 10, "multipleOf": 0.5}),
        st.just({"type": "boolean"}),
        st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=4,
                 unique=True).map(lambda xs: {"type": "string", "enum": xs}),
    )


def objects(values: st.SearchStrategy[dict]) -> st.SearchStrategy[dict]:
    def build(fields: dict, optional: set) -> dict:
        return {"type": "object", "properties": fields, "additionalProperties": False,
                "required": [k for k in fields if k not in optional]}
    return st.dictionaries(NAMES, values, min_size=1, max_size=3).flatmap(
        lambda fields: st.sets(st.sampled_from(sorted(fields))).map(lambda opt: build(fields, opt)))


def values() -> st.SearchStrategy[dict]:
    arrays = leaf().map(lambda item: {"type": "array", "items": item, "maxItems": 3})
    nested = objects(leaf())
    return st.one_of(leaf(), arrays, nested)


def kinds(schema: dict) -> set[str]:
    """What a schema holds, for the report: enum, nested object, array, optional field."""
    found = set()
    if "enum" in schema:
        found.add("enum")
    if schema.get("type") == "array":
        found.add("array")
        found |= kinds(schema["items"])
    if schema.get("type") == "object":
        if len(schema.get("required", [])) < len(schema["properties"]):
            found.add("optional field")
        for sub in schema["properties"].values():
            found |= kinds(sub) | ({"nested object"} if sub.get("type") == "object" else set())
    return found


def tool(parameters: dict) -> dict:
    return {"type": "function", "function": {"name": "probe", "description": "A probe.",
                                             "parameters": parameters}}


@settings(max_examples=CASES, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(objects(values()))
def test_a_constrained_reply_is_a_valid_call(parameters):
    DRAWN.update(kinds(parameters) | {"any"})
    gen = MODEL.generate(PROMPT, grammar=call_grammar([tool(parameters)], "required"),
                         max_new_tokens=BUDGET, stop=["</tool_call>"])
    assert gen.stop_reason == "stop_string", (gen.stop_reason, gen.text)
    parsed = parse_tool_calls(gen.text)
    assert len(parsed.calls) == 1 and not parsed.errors, gen.text
    jsonschema.validate(parsed.calls[0].arguments, parameters)


@pytest.fixture(scope="module", autouse=True)
def report_what_was_drawn():
    """After the property, in its own process (`make test-unit` runs two pytest-xdist workers):
    every kind of schema was drawn, and how often."""
    yield
    if DRAWN:  # the property ran here
        print("\nschemas drawn:", dict(DRAWN))
        assert DRAWN["any"] >= CASES
        assert all(DRAWN[k] > 0 for k in ("enum", "nested object", "array", "optional field"))
