"""Chapter 05: the toy tools behind a real MCP server, the harness as its client, and the wire between.

- `kitchen.mcp.server`: the server (official `mcp` SDK, low-level `Server`), run with
  `python -m kitchen.mcp` (stdio) or `python -m kitchen.mcp --http --port N`.
- `kitchen.mcp.client.MCPToolbox`: the `Toolbox` the harness uses to reach it; hides agent-only
  tools, injects the user id from the application's session, turns every failure into a result.
- `kitchen.mcp.wire`: `WireLog` (every JSON-RPC frame, both ways, shown as a conversation) and
  `RawSession` (frames written by hand).
- `kitchen.mcp.conventions`: `PROTOCOL_VERSION` ("2025-11-25", the revision the chapter teaches)
  and the other names client and server share.

>>> from kitchen.mcp import MCPToolbox, PROTOCOL_VERSION      # doctest: +SKIP
"""

from .client import MCPConnectionError, MCPToolbox, result_text
from .conventions import AGENT_ONLY_TOOLS, FAULT_TOOLS, PROTOCOL_VERSION, context_key, server_command
from .wire import Frame, RawSession, WireLog

__all__ = ["AGENT_ONLY_TOOLS", "FAULT_TOOLS", "Frame", "MCPConnectionError", "MCPToolbox", "PROTOCOL_VERSION",
           "RawSession", "WireLog", "context_key", "result_text", "server_command"]
