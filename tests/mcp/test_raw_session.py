"""`RawSession` (`kitchen.mcp.raw_session`): JSON lines written by hand, against a tiny echo script."""

from __future__ import annotations

import sys

import pytest

from kitchen.mcp.raw_session import RawSession


def test_a_raw_session_sends_lines_and_matches_answers(echo_server):
    with RawSession(echo_server, timeout=5) as raw:
        assert raw.request("tools/list") == {"jsonrpc": "2.0", "id": 1, "result": {"echo": "tools/list"}}
        assert raw.receive() == {"jsonrpc": "2.0", "method": "hello"}  # kept aside while waiting
        raw.send("not json")
        assert raw.receive() == {"unparsed": "not json back"}
        raw.notify("notifications/initialized")
        with pytest.raises(TimeoutError):
            raw.receive(timeout=0.2)
        pid = raw.pid
        kinds = [(f.direction, f.kind) for f in raw.wire]
    # The greeting and the first request cross at the same moment, in either order.
    assert sorted(kinds) == sorted([("←", "notification"), ("→", "request"), ("←", "response"),
                                    ("→", "invalid"), ("←", "invalid"), ("→", "notification")])
    assert not raw.alive and raw.process.returncode == 0 and pid


def test_the_handshake_waits_for_a_slow_start_and_other_requests_do_not(echo_server):
    slow = [echo_server[0], "-c", "import time; time.sleep(1.5)\n" + echo_server[2]]
    with RawSession(slow, timeout=0.5, connect_timeout=10) as raw:
        assert raw.initialize()["result"] == {"echo": "initialize"}  # answered after 1.5 s, within 10
    with RawSession(slow, timeout=0.5, connect_timeout=10) as raw:
        with pytest.raises(TimeoutError):
            raw.request("tools/list")  # not the handshake: 0.5 s


def test_a_closed_server_output_is_a_connection_error():
    raw = RawSession([sys.executable, "-c", "import sys; sys.stderr.write('bye\\n')"], timeout=5)
    with pytest.raises(ConnectionError, match="closed its output"):
        raw.receive()
    assert raw.close() == 0 and list(raw.stderr) == ["bye"]
