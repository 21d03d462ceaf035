"""Tool definitions checked before anything runs; message text; stop strings."""

import pytest

from kitchen.harness.api.request_parts import check_parameters, function_tool, read_stop, schema_tool, text_of
from kitchen.harness.api.turns import ApiError


def test_a_tool_without_parameters_gets_an_empty_object():
    assert schema_tool("ping", "", None, "tools[0]")["function"]["parameters"] == {"type": "object", "properties": {}}


@pytest.mark.parametrize("parameters", [
    {"type": "array"}, "object", {"type": "object", "properties": {"a": {"type": "nonsense"}}},
    {"type": "object", "required": "a"},
])
def test_parameters_that_are_not_a_json_schema_of_an_object_are_refused(parameters):
    with pytest.raises(ApiError) as err:
        check_parameters(parameters, "tools[0].function.parameters")
    assert err.value.param == "tools[0].function.parameters" and err.value.status == 400


def test_function_tool_reads_strict_and_refuses_other_kinds():
    with pytest.raises(ApiError):
        function_tool({"type": "web_search"}, "tools[1]")
    assert function_tool({"type": "function", "function": {"name": "f"}}, "tools[0]")[1] is False


def test_text_and_stops():
    assert text_of([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "m") == "ab"
    assert text_of(None, "m") == ""
    assert read_stop("END") == ["END"] and read_stop(None) == []
    with pytest.raises(ApiError):
        read_stop([""])
