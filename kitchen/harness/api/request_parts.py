"""The parts of a request both API shapes share: tool definitions, message text, stop strings.

A tool definition is checked before anything runs: a name the APIs accept, and parameters that are
a JSON Schema (Draft 2020-12) of an object. A bad one is a 400 naming the tool, never a crash later
in the template or the grammar.

>>> spec, strict = function_tool({"type": "function", "function": {"name": "add",
...     "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}, "strict": True}}, "tools[0]")
>>> spec["function"]["name"], strict
('add', True)
"""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from kitchen.harness.api.turns import ApiError

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what both APIs accept as a tool's name


def function_tool(tool: Any, where: str) -> tuple[dict, bool]:
    """An OpenAI tool definition as the chat template's schema, and whether it asked for `strict`."""
    function = tool.get("function") if isinstance(tool, dict) and tool.get("type") == "function" else None
    if not isinstance(function, dict):
        raise ApiError(400, f"{where} must be {{'type': 'function', 'function': {{...}}}}.", param=where)
    return schema_tool(function.get("name"), function.get("description", ""), function.get("parameters"),
                       f"{where}.function"), bool(function.get("strict"))


def schema_tool(name: Any, description: Any, parameters: Any, where: str) -> dict:
    """A tool's name, description and parameters, checked, as the chat template's schema."""
    if not isinstance(name, str) or not NAME.match(name):
        raise ApiError(400, f"{where}.name must be 1-64 letters, digits, '_' or '-' (got {name!r}).",
                       param=f"{where}.name")
    if not isinstance(description, str):
        raise ApiError(400, f"{where}.description must be a string.", param=f"{where}.description")
    parameters = {"type": "object", "properties": {}} if parameters is None else parameters
    check_parameters(parameters, f"{where}.parameters")
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def check_parameters(parameters: Any, where: str) -> None:
    """A 400 unless `parameters` is a JSON Schema of an object.

    >>> check_parameters({"type": "object", "properties": {"a": {"type": "nonsense"}}}, "tools[0]")
    Traceback (most recent call last):
    ...
    kitchen.harness.api.turns.ApiError: tools[0] is not a valid JSON Schema: 'nonsense' is not valid under any of the given schemas (at properties.a.type)
    """
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise ApiError(400, f"{where} must be a JSON Schema with \"type\": \"object\".", param=where)
    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as err:
        at = ".".join(str(p) for p in err.path)
        raise ApiError(400, f"{where} is not a valid JSON Schema: {err.message}" + (f" (at {at})" if at else ""),
                       param=where) from None


def text_of(content: Any, where: str) -> str:
    """A message's content as text: a string, or a list of text parts joined; nothing else."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text"
                                         and isinstance(p.get("text"), str) for p in content):
        return "".join(p["text"] for p in content)
    raise ApiError(400, f"{where}.content must be a string or a list of text parts (this server reads text only).",
                   param=f"{where}.content")


def read_stop(stop: Any) -> list[str]:
    """The request's stop strings: none, one, or a list of up to four."""
    if stop is None:
        return []
    stops = [stop] if isinstance(stop, str) else stop
    if not isinstance(stops, list) or len(stops) > 4 or not all(isinstance(s, str) and s for s in stops):
        raise ApiError(400, "'stop' must be a string or a list of up to 4 strings.", param="stop")
    return stops
