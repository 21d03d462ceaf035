"""Every toy tool can be described to the model: a schema with every parameter documented."""

from __future__ import annotations

import inspect
import json

import pytest

from kitchen.tools.schemas import to_mcp, tool_schema
from kitchen.tools import TOY_TOOLS


@pytest.mark.parametrize("fn", TOY_TOOLS, ids=lambda fn: fn.__name__)
def test_schema_describes_every_parameter(fn) -> None:
    schema = tool_schema(fn)
    json.dumps(schema)
    function = schema["function"]
    assert schema["type"] == "function" and function["name"] == fn.__name__
    assert len(function["description"]) > 80
    # The description is what the model reads: no leftover docstring sections or doctests.
    assert not any(marker in function["description"] for marker in ("Args:", "Returns:", ">>>"))
    parameters = inspect.signature(fn).parameters
    properties = function["parameters"]["properties"]
    assert list(properties) == list(parameters)
    for name, spec in properties.items():
        assert spec["type"] in {"string", "integer"}
        assert len(spec.get("description", "")) > 10, f"{fn.__name__}({name}) is undescribed"
    required = [name for name, p in parameters.items() if p.default is inspect.Parameter.empty]
    assert function["parameters"].get("required", []) == required
    assert to_mcp(schema)["inputSchema"]["properties"] == properties


def test_each_parameter_type_matches_its_hint() -> None:
    types = {fn.__name__: {name: spec["type"] for name, spec in
                           tool_schema(fn)["function"]["parameters"]["properties"].items()}
             for fn in TOY_TOOLS}
    assert types == {
        "calculator": {"expression": "string"},
        "search_rhymes": {"query": "string", "limit": "integer"},
        "count_words": {"text": "string", "rhyme_title": "string"},
        "fetch_page": {"url": "string"},
        "browse_files": {"path": "string"},
    }
