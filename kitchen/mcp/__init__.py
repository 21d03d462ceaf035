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

This package only names what notebooks use; importing it imports and starts nothing.

>>> from kitchen.mcp import PROTOCOL_VERSION
>>> PROTOCOL_VERSION
'2025-11-25'
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.mcp.client": ["LIST_CHANGED", "MCPConnectionError", "MCPToolbox", "result_text"],
    "kitchen.mcp.conventions": ["AGENT_ONLY_TOOLS", "FAULT_TOOLS", "PROTOCOL_VERSION", "context_key",
                                "server_command"],
    "kitchen.mcp.frames": ["Frame", "WireLog"],
    "kitchen.mcp.raw_session": ["RawSession"],
    "kitchen.mcp.login": ["room_server"],
})
