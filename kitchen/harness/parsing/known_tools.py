"""The tools as the parser sees them: a name, the parameter names in order, the required ones.

It owns reading the tools handed to `parse_tool_calls` (any form `kitchen.tools.schemas.as_schema`
accepts) into that small table, and the one rule for which parameter a bare value fills, shared
by the ``call_tag`` format and by `kitchen.harness.protocols`, which writes such calls. It does not check
arguments against the schemas: the harness does that with jsonschema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from kitchen.tools.schemas import as_schema


@dataclass(frozen=True)
class Tool:
    """One known tool, reduced to what finding and reading its calls needs."""

    name: str
    params: tuple[str, ...]    # in the schema's `properties` order: how positional values map
    required: tuple[str, ...]


def read_tools(tools: Sequence | None) -> dict[str, Tool]:
    """The known tools by name; entries without a string name are left out.

    >>> read_tools([{"type": "function", "function": {"name": "f", "parameters": {
    ...     "type": "object", "properties": {"x": {}, "y": {}}, "required": ["y", "z"]}}}])
    {'f': Tool(name='f', params=('x', 'y'), required=('y',))}
    """
    table: dict[str, Tool] = {}
    for tool in tools or ():
        function = as_schema(tool).get("function") or {}
        name = function.get("name")
        if not isinstance(name, str):
            continue
        parameters = function.get("parameters")
        parameters = parameters if isinstance(parameters, dict) else {}
        properties = parameters.get("properties")
        params = (tuple(p for p in properties if isinstance(p, str))
                  if isinstance(properties, dict) else ())
        required = parameters.get("required")
        required = tuple(r for r in required if r in params) if isinstance(required, list) else ()
        table[name] = Tool(name, params, required)
    return table


def bare_value_parameter(params: Sequence[str], required: Sequence[str]) -> str | None:
    """The parameter that a bare value fills (the body of ``<call calculator>2 + 2</call>``): the
    tool's one required parameter, or else its first parameter; None for a tool without any.

    >>> bare_value_parameter(["query", "limit"], ["query"])
    'query'
    >>> bare_value_parameter(["a", "b"], ["b", "a"])
    'a'
    >>> print(bare_value_parameter([], []))
    None
    """
    if len(required) == 1:
        return required[0]
    return params[0] if params else None
