"""The tools as the parser sees them (`kitchen.harness.parsing.known_tools`), and the one rule for
the parameter a bare value fills, shared with the protocol that writes such calls."""

from __future__ import annotations

import pytest

from kitchen.harness.parsing import parse_tool_calls
from kitchen.harness.parsing.known_tools import Tool, bare_value_parameter, read_tools
from kitchen.harness.protocols import CallTagProtocol, plain_parameter
from kitchen.tools import TOY_TOOLS
from kitchen.tools.schemas import tool_schema

SCHEMAS = [tool_schema(f) for f in TOY_TOOLS]


def schema(properties: list[str], required: list[str]) -> dict:
    return {"type": "function", "function": {"name": "t", "description": "", "parameters": {
        "type": "object", "properties": {p: {"type": "string"} for p in properties},
        "required": required}}}


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
