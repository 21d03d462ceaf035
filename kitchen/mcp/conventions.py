"""What chapter 05's MCP server and client agree on, beyond what the SDK already fixes.

- `PROTOCOL_VERSION`, the MCP revision the chapter teaches: **2025-11-25**. It is the newest
  revision still reached through the `initialize` handshake, and in it the server may send
  `notifications/tools/list_changed` to a stdio client whenever it likes, as a plain JSON-RPC
  notification. The SDK also speaks 2026-07-28, where there is no handshake and change
  notifications only travel on a `subscriptions/listen` stream the client opened first; the SDK
  drops a bare one on the stdio pipe. The client (`kitchen.mcp.client`) offers exactly this
  version and refuses a server that answers with another.
- `META_PREFIX`: the `_meta` keys the application uses for what it supplies itself (the signed-in
  user) and for the kind of error a tool result reports. MCP reserves `_meta` for metadata and
  asks for a prefix on custom keys (`llm-kitchen/user_id`).
- `AGENT_ONLY_TOOLS`: tools that live on the server but that the model never sees;
  `FAULT_TOOLS` and `STRUCTURED_TOOLS`: tools only a server started with `--faults`, or with
  `--structured` (2025-11-25's `outputSchema`, `annotations`, closed input schemas:
  `kitchen.mcp.structured`), offers.
- `server_command()`: the command line that starts the server (`python -m kitchen.mcp`).
- `check_sdk()`: a clear error when the installed `mcp` SDK no longer speaks `PROTOCOL_VERSION`,
  called where a connection or a server starts (never at import).

This module does no input or output; it only names things.
"""

from __future__ import annotations

import sys
from typing import Sequence

from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS

PROTOCOL_VERSION = "2025-11-25"

SERVER_NAME = "llm-kitchen-tools"
SERVER_VERSION = "0.1.0"
CLIENT_NAME = "llm-kitchen-harness"

META_PREFIX = "llm-kitchen/"
ERROR_KIND_KEY = META_PREFIX + "error_kind"  # in a CallToolResult's _meta: "invalid_arguments", ...

# On the server, listed by tools/list; hidden from the model by the client adapter.
AGENT_ONLY_TOOLS = ("save_memory", "enable_weather")
# Only on a server started with --faults.
FAULT_TOOLS = ("stall", "crash")
# Only on a server started with --structured.
STRUCTURED_TOOLS = ("delete_file",)


def check_sdk(supported: Sequence[str] = HANDSHAKE_PROTOCOL_VERSIONS) -> None:
    """Raise a RuntimeError if the SDK's handshake versions (`supported`) leave out `PROTOCOL_VERSION`.

    >>> check_sdk(["2024-11-05"])                                  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    RuntimeError: the installed mcp SDK no longer speaks protocol version 2025-11-25 (it speaks 2024-11-05)...
    """
    if PROTOCOL_VERSION not in supported:
        raise RuntimeError(f"the installed mcp SDK no longer speaks protocol version {PROTOCOL_VERSION} "
                           f"(it speaks {', '.join(supported)}); install the version pinned in requirements.lock")


def context_key(key: str) -> str:
    """The `_meta` key that carries one value of the application's session.

    >>> context_key("user_id")
    'llm-kitchen/user_id'
    """
    return META_PREFIX + key


def server_command(*, faults: bool = False, structured: bool = False, http: bool = False,
                   port: int | None = None, room: str | None = None, python: str | None = None) -> list[str]:
    """The command that starts chapter 05's MCP server, with this interpreter by default.

    >>> server_command(faults=True)[1:]
    ['-m', 'kitchen.mcp', '--faults']
    >>> server_command(structured=True)[1:]
    ['-m', 'kitchen.mcp', '--structured']
    """
    command = [python or sys.executable, "-m", "kitchen.mcp"]
    if faults:
        command.append("--faults")
    if structured:
        command.append("--structured")
    if http:
        command.append("--http")
    if port is not None:
        command += ["--port", str(port)]
    if room is not None:
        command += ["--room", room]
    return command
