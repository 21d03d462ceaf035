"""How the client adapter reaches the server, with every frame copied into a `WireLog`.

- `open_stdio(command, wire)`: start the server as a subprocess and exchange newline-delimited
  JSON-RPC with it. The lines are read and written here (not by the SDK's `stdio_client`), so the
  log holds each line exactly as it crossed the pipe, and we know the process: its pid, its exit
  code, the last lines of its stderr. Closing follows the MCP lifecycle for stdio
  (`kitchen.mcp.processes.stop_process`: close stdin, wait, terminate, kill).
- `open_http(url, wire, token)`: the SDK's streamable HTTP client, with the messages copied on
  their way through, and the learner's bearer token on every request when there is one. HTTP
  framing (headers, POST bodies, server-sent events) is not shown, only the JSON-RPC inside.

Both yield the pair of streams the SDK's `ClientSession` runs on. Frames are recorded in the order
they cross, before the session sees them, so a `WireLog` subscriber can react to a notification
before the response that follows it is delivered.

What this module does not do: speak MCP (that is `ClientSession`'s job), decide what a failure
means for the model (that is `kitchen.mcp.client`'s and `kitchen.mcp.failures`'), or stop a
process itself (`kitchen.mcp.processes`).
"""

from __future__ import annotations

import os
import subprocess
from collections import deque
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Sequence

import anyio
import anyio.abc
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from kitchen.mcp.frames import TO_CLIENT, TO_SERVER, WireLog, json_object
from kitchen.mcp.processes import stop_process


@dataclass
class Link:
    """One live connection: the streams for `ClientSession`, and the server process if we started it."""

    read_stream: MemoryObjectReceiveStream[SessionMessage | Exception]
    write_stream: MemoryObjectSendStream[SessionMessage]
    process: anyio.abc.Process | None = None
    stderr: deque[str] = field(default_factory=lambda: deque(maxlen=100))
    closed: anyio.Event = field(default_factory=anyio.Event)  # set when the server's output ended

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process else None


def _to_message(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as err:
        return err


async def _pump_stdout(process: anyio.abc.Process, wire: WireLog, link: Link,
                       to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    """The server's stdout, line by line, into the log and on to the session."""
    assert process.stdout is not None
    buffer = b""
    try:
        async with to_session:
            async for chunk in process.stdout:
                *lines, buffer = (buffer + chunk).split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", errors="replace").strip()
                    if not line:
                        continue
                    wire.record(TO_CLIENT, json_object(line), raw=line)
                    await to_session.send(_to_message(line))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # the session is gone; we are shutting down
    finally:
        link.closed.set()


async def _pump_stdin(process: anyio.abc.Process, wire: WireLog,
                      from_session: MemoryObjectReceiveStream[SessionMessage],
                      to_session: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    """The session's messages into the log and on to the server's stdin, one line each."""
    assert process.stdin is not None
    try:
        async with from_session:
            async for item in from_session:
                line = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                wire.record(TO_SERVER, json_object(line), raw=line)
                await process.stdin.send(line.encode("utf-8") + b"\n")
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        # The server stopped reading (it died): end the session's input too, so that
        # waiting requests fail now instead of at their timeout.
        await to_session.aclose()


async def _pump_stderr(process: anyio.abc.Process, link: Link) -> None:
    """The server's stderr into `link.stderr` (the last lines only)."""
    assert process.stderr is not None
    buffer = b""
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        async for chunk in process.stderr:
            *lines, buffer = (buffer + chunk).split(b"\n")
            link.stderr.extend(raw.decode("utf-8", errors="replace") for raw in lines)


@asynccontextmanager
async def open_stdio(command: Sequence[str], wire: WireLog, *, env: dict[str, str] | None = None,
                     cwd: str | None = None) -> AsyncIterator[Link]:
    """Start `command` and connect to it over its stdin/stdout."""
    process = await anyio.open_process(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env={**os.environ, **(env or {})},
                                       cwd=cwd, start_new_session=True)
    to_session, session_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    session_writes, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    link = Link(session_reads, session_writes, process)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_pump_stdout, process, wire, link, to_session)
        tg.start_soon(_pump_stdin, process, wire, from_session, to_session)
        tg.start_soon(_pump_stderr, process, link)
        try:
            yield link
        finally:
            with anyio.CancelScope(shield=True):
                await stop_process(process)
            tg.cancel_scope.cancel()
    for stream in (to_session, session_reads, session_writes, from_session):
        stream.close()


@asynccontextmanager
async def open_http(url: str, wire: WireLog, token: str | None = None) -> AsyncIterator[Link]:
    """Connect to a streamable HTTP server at `url` (e.g. http://127.0.0.1:8765/mcp), sending
    `Authorization: Bearer <token>` with every request when a token is given."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http, \
            streamable_http_client(url, http_client=http) as (sdk_reads, sdk_writes):
        to_session, session_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        session_writes, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        link = Link(session_reads, session_writes)

        def dump(item: SessionMessage) -> dict[str, Any]:
            return item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)

        async def inbound() -> None:
            try:
                async with to_session:
                    async for item in sdk_reads:
                        if isinstance(item, SessionMessage):
                            wire.record(TO_CLIENT, dump(item))
                        await to_session.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass
            finally:
                link.closed.set()

        async def outbound() -> None:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async with from_session:
                    async for item in from_session:
                        wire.record(TO_SERVER, dump(item))
                        await sdk_writes.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(inbound)
            tg.start_soon(outbound)
            try:
                yield link
            finally:
                tg.cancel_scope.cancel()
        for stream in (to_session, session_reads, session_writes, from_session):
            stream.close()
