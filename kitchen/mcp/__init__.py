"""Chapter 05: the toy tools behind a real MCP server, the harness as its client, and the wire between.

- `kitchen.mcp.server`: the server (official `mcp` SDK, low-level `Server`), run with
  `python -m kitchen.mcp` (stdio) or `python -m kitchen.mcp --http --port N`.
- `kitchen.mcp.client.MCPToolbox`: the `Toolbox` the harness uses to reach it (its connection);
  `kitchen.mcp.failures` says what went wrong when a call fails.
- `kitchen.mcp.frames`: `WireLog` (every JSON-RPC frame, both ways) and `Frame`;
  `kitchen.mcp.views` draws them as a conversation.
- `kitchen.mcp.raw_session`: `RawSession` (frames written by hand).
- `kitchen.mcp.transports` and `kitchen.mcp.processes`: the pipes, and stopping the server process.
- `kitchen.mcp.login`: `room_server`, the classroom's server with a token per learner.
- `kitchen.mcp.conventions`: `PROTOCOL_VERSION` ("2025-11-25", the revision the chapter teaches)
  and the other names client and server share.
- The structured side of 2025-11-25's tools, on a server started with `--structured`
  (`MCPToolbox(structured=True)`): `kitchen.mcp.structured` publishes `outputSchema`
  (`output_schema`, from a TypedDict return annotation: `count_words`), `annotations`
  (`TOOL_HINTS`) and input schemas that forbid extra fields; the server adds `delete_file`
  (`STRUCTURED_TOOLS`), destructive, over its own copy of the pretend files. A result's
  `structuredContent` is checked against the `outputSchema` and kept on `ToolResult.structured`.
- `kitchen.mcp.policy`: `ConfirmDestructive`, the application's confirmation (a `Confirm`
  callable) before a model's call of a tool that is not read-only: `MCPToolbox(confirm=...)`.

This package only names what notebooks use; importing it imports and starts nothing.

>>> from kitchen.mcp import PROTOCOL_VERSION
>>> PROTOCOL_VERSION
'2025-11-25'
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.mcp.client": ["LIST_CHANGED", "MCPConnectionError", "MCPToolbox", "result_text"],
    "kitchen.mcp.conventions": ["AGENT_ONLY_TOOLS", "FAULT_TOOLS", "PROTOCOL_VERSION", "STRUCTURED_TOOLS",
                                "context_key", "server_command"],
    "kitchen.mcp.policy": ["Asked", "Confirm", "ConfirmDestructive"],
    "kitchen.mcp.structured": ["TOOL_HINTS", "output_schema"],
    "kitchen.mcp.frames": ["Frame", "WireLog"],
    "kitchen.mcp.raw_session": ["RawSession"],
    "kitchen.mcp.login": ["room_server"],
})
