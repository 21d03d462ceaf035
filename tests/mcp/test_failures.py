"""What went wrong between client and server, in words (`kitchen.mcp.failures`); no server runs."""

from __future__ import annotations

from types import SimpleNamespace

import mcp.types as types
from mcp.shared.exceptions import MCPError

from kitchen.mcp.failures import classify, connect_error, describe, lost_connection, stopped_reason


def test_failures_are_classified_for_the_model():
    assert classify(MCPError(code=types.REQUEST_TIMEOUT, message="late")) == "timeout"
    assert classify(MCPError(code=types.INVALID_PARAMS, message="bad arguments")) == "refused"
    assert classify(MCPError(code=types.CONNECTION_CLOSED, message="closed")) == "lost"
    assert describe(ValueError("x")) == "ValueError: x"


def test_a_lost_connection_is_explained_with_the_process_s_last_words():
    open_link = SimpleNamespace(process=None, closed=SimpleNamespace(is_set=lambda: False), stderr=[])
    assert lost_connection(TimeoutError(), open_link) is None  # the connection may go on
    assert lost_connection(OSError("pipe"), open_link) == "the connection failed (OSError: pipe)"
    dead = SimpleNamespace(process=object(), returncode=3, closed=SimpleNamespace(is_set=lambda: True),
                           stderr=["starting", "Traceback: boom", "  "])
    assert lost_connection(TimeoutError(), dead) == (
        "the MCP server process stopped (exit code 3); its last words: Traceback: boom")
    assert stopped_reason(None) == "the connection to the MCP server closed"
    assert connect_error("x", OSError("no"), dead).endswith("server stderr: starting; Traceback: boom;   ")
