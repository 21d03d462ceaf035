"""The structured side of a tool on chapter 05's MCP server, as MCP revision 2025-11-25 defines it.

A server started with `--structured` (`KitchenServer(structured=True)`) publishes three more
things about its tools in `tools/list` (specification 2025-11-25, server/tools, "Tool"):

- `outputSchema`: the JSON schema of a tool's result, derived from the function's return
  annotation when that is a TypedDict, as the official SDK's FastMCP derives it (with pydantic):
  `count_words` returns `WordCounts`. The `tools/call` result of such a tool carries the value as
  `structuredContent` and, for clients that predate it, the same JSON serialized in a `text`
  block ("Structured Content": a tool that returns structured content SHOULD also do that). A
  server MUST send structured results that conform to the schema, so this one checks its own
  before sending them; clients SHOULD validate them, and `kitchen.mcp.client` does.
- `annotations` (`TOOL_HINTS`): `readOnlyHint`, `destructiveHint`, `idempotentHint` and
  `openWorldHint`. They are hints: the specification says clients MUST consider them untrusted
  unless they come from trusted servers. `kitchen.mcp.policy` acts on them.
- `"additionalProperties": false` in every `inputSchema`. The server refused unknown arguments
  already; now the schema the client reads says so too, and a call with an extra field still
  gets an `isError` result naming it.

The same server also offers `delete_file`, a destructive tool over its own in-memory copy of the
pretend file tree (`kitchen.tools.files`), so that the hints have something to protect.

>>> from kitchen.tools import count_words
>>> output_schema(count_words)["required"]
['words', 'lines', 'characters', 'of']
>>> TOOL_HINTS["delete_file"]["destructiveHint"], TOOL_HINTS["calculator"]["readOnlyHint"]
(True, True)
"""

from __future__ import annotations

import typing
from typing import Any, Callable

from pydantic import TypeAdapter
from typing_extensions import is_typeddict  # typing's own misses typing_extensions' TypedDicts on 3.11

from kitchen.harness.toolbox import schema_problem, strict

# For a read-only tool the specification reads only readOnlyHint and openWorldHint: destructiveHint
# and idempotentHint are "meaningful only when readOnlyHint == false".
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
# fetch_page and get_weather answer from canned data, but they stand for the web and a weather
# service, outside the server: an open world.
READ_ONLY_OPEN = {"readOnlyHint": True, "openWorldHint": True}

TOOL_HINTS: dict[str, dict[str, bool]] = {
    "calculator": READ_ONLY,
    "search_rhymes": READ_ONLY,
    "count_words": READ_ONLY,
    "fetch_page": READ_ONLY_OPEN,
    "browse_files": READ_ONLY,
    "my_notes": READ_ONLY,
    "get_weather": READ_ONLY_OPEN,
    # Adds a note; never changes or removes one. Saving the same note twice keeps it twice.
    "save_memory": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
                    "openWorldHint": False},
    "enable_weather": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True,
                       "openWorldHint": False},
    # Removes a file for good; deleting it again changes nothing more (it fails: the file is gone).
    "delete_file": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True,
                    "openWorldHint": False},
    "stall": READ_ONLY,
    # Ends the server process (only with --faults).
    "crash": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False},
}
"""The annotations the `--structured` server publishes, by tool name (spec 2025-11-25, ToolAnnotations)."""


def output_schema(fn: Callable) -> dict[str, Any] | None:
    """The JSON schema of what `fn` returns when its return annotation is a TypedDict, else None.

    >>> def shout(text: str) -> str: ...
    >>> output_schema(shout) is None
    True
    """
    returns = typing.get_type_hints(fn).get("return")
    if returns is None or not is_typeddict(returns):
        return None
    return TypeAdapter(returns).json_schema()


def structured_view(view: dict[str, Any], fn: Callable) -> dict[str, Any]:
    """A tool's MCP view (`name`, `description`, `inputSchema`) with what `--structured` adds:
    a closed `inputSchema`, an `outputSchema` where `fn` has one, and the tool's `annotations`."""
    out = {**view, "inputSchema": strict(view["inputSchema"])}
    if (schema := output_schema(fn)) is not None:
        out["outputSchema"] = schema
    if (hints := TOOL_HINTS.get(view["name"])) is not None:
        out["annotations"] = dict(hints)
    return out


def structured_problem(schema: dict[str, Any], value: Any) -> str | None:
    """Why `value` is not a structured result that conforms to `schema`, in words; None when it is.

    >>> schema = {"type": "object", "properties": {"words": {"type": "integer"}}, "required": ["words"]}
    >>> structured_problem(schema, {"words": "three"})
    "'three' is not of type 'integer' (at words)"
    >>> structured_problem(schema, None)
    'the tool declares an outputSchema but no structuredContent came back'
    """
    if value is None:
        return "the tool declares an outputSchema but no structuredContent came back"
    if not isinstance(value, dict):
        return f"structuredContent must be a JSON object, not {type(value).__name__}"
    return schema_problem(schema, value)
