"""The stdio transport (`kitchen.mcp.transports`), against tiny Python scripts instead of the server."""

from __future__ import annotations

import sys

import anyio
import mcp.types as types
from mcp.shared.message import SessionMessage

from kitchen.mcp.frames import WireLog
from kitchen.mcp.transports import Link, open_stdio


async def _until(predicate, seconds: float = 10.0) -> None:
    with anyio.fail_after(seconds):
        while not predicate():
            await anyio.sleep(0.02)


def test_the_stdio_transport_logs_each_line_and_stops_the_process(echo_server):
    wire = WireLog()

    async def main() -> tuple[list, Link]:
        async with open_stdio(echo_server, wire) as link:
            request = types.jsonrpc_message_adapter.validate_python(
                {"jsonrpc": "2.0", "id": 1, "method": "ping"}, by_name=False)
            await link.write_stream.send(SessionMessage(request))
            got = [await link.read_stream.receive(), await link.read_stream.receive()]
            assert link.pid and not link.closed.is_set()
        return got, link

    got, link = anyio.run(main)
    assert sorted(type(m.message).__name__ for m in got) == ["JSONRPCNotification", "JSONRPCResponse"]
    assert link.closed.is_set() and link.returncode == 0  # stdin closed: the script ended on its own
    request = wire.filter("ping", direction="→").frames[0]
    assert request.raw == '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert [f.kind for f in wire.filter("ping")] == ["request", "response"]


def test_a_line_that_is_not_json_rpc_reaches_the_session_as_an_error_and_the_log_as_invalid():
    script = [sys.executable, "-c", "import sys; print('hello there', flush=True); sys.stdin.read()"]
    wire = WireLog()

    async def main():
        async with open_stdio(script, wire) as link:
            return await link.read_stream.receive()

    got = anyio.run(main)
    assert isinstance(got, ValueError)  # the session is told, instead of the line vanishing
    assert [(f.direction, f.kind, f.raw) for f in wire] == [("←", "invalid", "hello there")]


def test_a_server_that_exits_closes_the_link_with_its_exit_code_and_last_words():
    script = [sys.executable, "-c", "import sys; sys.stderr.write('starting\\nTraceback: boom\\n'); sys.exit(3)"]

    async def main() -> Link:
        async with open_stdio(script, WireLog()) as link:
            await _until(link.closed.is_set)  # its stdout ended, though nobody closed its stdin
            await _until(lambda: len(link.stderr) == 2)
        return link

    link = anyio.run(main)
    assert link.returncode == 3 and list(link.stderr) == ["starting", "Traceback: boom"]
