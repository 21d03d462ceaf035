"""Tool schemas built from plain Python functions, and the two views the series uses.

A tool is a function with type hints and a Google-style docstring. Its JSON schema comes from
`transformers.utils.get_json_schema`, never from a hand-written dict. Parameters that the
application fills in (a user id, a session token) are declared with an `Injected` default and
never reach the schema, so the model cannot see or set them.

Two views of one schema:

- the chat-template view, what `apply_chat_template(tools=...)` renders for the model:
  `{"type": "function", "function": {"name", "description", "parameters"}}`;
- the MCP view, what a server sends in `tools/list`: `{"name", "description", "inputSchema"}`.

>>> def shout(text: str) -> str:
...     '''Make text loud.
...
...     Args:
...         text: What to shout.
...     '''
...     return text.upper()
>>> tool_schema(shout)["function"]["parameters"]
{'type': 'object', 'properties': {'text': {'type': 'string', 'description': 'What to shout.'}}, 'required': ['text']}
>>> to_mcp(tool_schema(shout))["inputSchema"]["required"]
['text']
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Callable

from transformers.utils import get_json_schema
from transformers.utils.chat_template_utils import DocstringParsingException, TypeHintParsingException


class SchemaError(ValueError):
    """A function that cannot be described to the model (no docstring, undocumented argument...)."""


class Injected:
    """Default value that marks a parameter the application fills in, never the model.

    >>> def notes(query: str, user_id: str = Injected("user_id")) -> str: ...
    """

    def __init__(self, key: str):
        self.key = key

    def __repr__(self) -> str:
        return f"Injected({self.key!r})"


def injected_params(fn: Callable) -> dict[str, Injected]:
    """The parameters of `fn` that the application injects, by name."""
    return {name: p.default for name, p in inspect.signature(fn).parameters.items()
            if isinstance(p.default, Injected)}


def tool_schema(fn: Callable) -> dict[str, Any]:
    """The chat-template view of a function's schema, injected parameters left out."""
    try:
        schema = get_json_schema(fn)
    except (DocstringParsingException, TypeHintParsingException) as err:
        raise SchemaError(f"Cannot describe tool {getattr(fn, '__name__', fn)!r} to the model: {err}") from None
    function = schema["function"]
    function.pop("return", None)
    # A docstring wraps its lines for people; the model gets the description as one paragraph.
    function["description"] = " ".join(function["description"].split())
    params = function["parameters"]
    for name in injected_params(fn):
        params["properties"].pop(name, None)
        if name in params.get("required", []):
            params["required"].remove(name)
    if "required" in params and not params["required"]:
        del params["required"]
    return schema


def to_mcp(schema: dict[str, Any]) -> dict[str, Any]:
    """Chat-template view -> MCP view (`name`, `description`, `inputSchema`)."""
    f = schema["function"]
    return {"name": f["name"], "description": f.get("description", ""),
            "inputSchema": copy.deepcopy(f["parameters"])}


def from_mcp(tool: dict[str, Any]) -> dict[str, Any]:
    """MCP view -> chat-template view."""
    return {"type": "function", "function": {
        "name": tool["name"], "description": tool.get("description") or "",
        "parameters": copy.deepcopy(tool.get("inputSchema") or {"type": "object", "properties": {}})}}


def as_schema(tool: Callable | dict[str, Any]) -> dict[str, Any]:
    """Any accepted form of a tool (function, chat-template view, MCP view) -> chat-template view."""
    if callable(tool):
        return tool_schema(tool)
    if tool.get("type") == "function" and "function" in tool:
        return tool
    if "inputSchema" in tool:
        return from_mcp(tool)
    raise SchemaError(f"Not a tool: {tool!r}")
