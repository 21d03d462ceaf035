"""What went wrong between the client adapter and the MCP server, told in words.

- `describe(err)`: an exception as one line (JSON-RPC errors with their code).
- `classify(err)`: what a failed `tools/call` means: it ran out of time, the server does not know
  the tool, the server refused the call (any other JSON-RPC error), or the connection is lost.
- `lost_connection(err, link)`: why the connection can carry no more calls, or None if it still can.
- `stopped_reason(link)`: how the server process ended: its exit code and its last words on stderr.
- `connect_error(where, err, link)`: why a toolbox could not connect at all.

What this module does not do: hold any state, or write the sentences the model reads
(`kitchen.harness.refusals`); `kitchen.mcp.client` turns these answers into results.
"""

from __future__ import annotations

import time
from typing import Literal

import mcp.types as types
from mcp.shared.exceptions import MCPError

from kitchen.harness.refusals import UNKNOWN_TOOL_ON_SERVER

from kitchen.mcp.transports import Link

Failure = Literal["timeout", "unknown_tool", "refused", "lost"]


def describe(err: BaseException) -> str:
    """One line for an exception; an exception group lists its members.

    >>> describe(MCPError(code=-32601, message="Method not found"))
    'JSON-RPC error -32601: Method not found'
    >>> describe(ExceptionGroup("two", [OSError("no pipe"), ValueError("bad")]))
    'OSError: no pipe; ValueError: bad'
    """
    if isinstance(err, MCPError):
        return f"JSON-RPC error {err.code}: {err.message}"
    if isinstance(err, BaseExceptionGroup):
        return "; ".join(describe(e) for e in err.exceptions)
    return f"{type(err).__name__}: {err}"


def classify(err: BaseException) -> Failure:
    """What a failed call means for the model.

    >>> classify(TimeoutError()), classify(MCPError(code=types.INVALID_PARAMS, message="Unknown tool: x"))
    ('timeout', 'unknown_tool')
    >>> classify(MCPError(code=types.INTERNAL_ERROR, message="oops")), classify(OSError("pipe"))
    ('refused', 'lost')
    """
    if isinstance(err, MCPError) and err.code == types.REQUEST_TIMEOUT or isinstance(err, TimeoutError):
        return "timeout"
    if isinstance(err, MCPError) and err.code == types.INVALID_PARAMS and UNKNOWN_TOOL_ON_SERVER in err.message:
        return "unknown_tool"
    if isinstance(err, MCPError) and err.code != types.CONNECTION_CLOSED:
        return "refused"
    return "lost"


def lost_connection(err: BaseException, link: Link | None) -> str | None:
    """Why the connection is gone after `err`, or None when it may still carry calls."""
    closed = isinstance(err, MCPError) and err.code == types.CONNECTION_CLOSED
    if closed or (link and link.closed.is_set()):
        return stopped_reason(link)
    if not isinstance(err, (MCPError, TimeoutError)):
        return f"the connection failed ({describe(err)})"
    return None


def stopped_reason(link: Link | None) -> str:
    """How the server's side ended; for a process we started, waits up to a second for its exit code."""
    if link is None or link.process is None:
        return "the connection to the MCP server closed"
    deadline = time.monotonic() + 1.0  # the exit code shows up a moment after the pipe closes
    while link.returncode is None and time.monotonic() < deadline:
        time.sleep(0.02)
    code = link.returncode
    tail = [line for line in link.stderr if line.strip()][-1:]
    return (f"the MCP server process stopped (exit code {code})"
            + (f"; its last words: {tail[0]}" if tail else ""))


def connect_error(where: str, err: BaseException, link: Link | None) -> str:
    """Why connecting to the server at `where` failed, with the end of its stderr when there is one."""
    stderr = "; ".join(link.stderr) if link and link.stderr else ""
    return (f"could not connect to the MCP server ({where}): "
            f"{describe(err)}{'; server stderr: ' + stderr[-500:] if stderr else ''}")
