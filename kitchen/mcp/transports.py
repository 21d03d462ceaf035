"""How the client adapter reaches the server, with every frame copied into a `WireLog`.

- `open_stdio(command, wire)`: start the server as a subprocess and exchange newline-delimited
  JSON-RPC with it. The lines are read and written here (not by the SDK's `stdio_client`), so the
  log holds each line exactly as it crossed the pipe, and we know the process: its pid, its exit
  code, the last lines of its stderr. Closing follows the MCP lifecycle for stdio: close the
  server's stdin, give it a moment to exit, then terminate it, then kill it.
- `open_http(url, wire)`: the SDK's streamable HTTP client, with the messages copied on their way
  through. HTTP framing (POST bodies, server-sent events) is not shown, only the JSON-RPC inside.

Both yield the pair of streams the SDK's `ClientSession` runs on. Frames are recorded in the order
they cross, before the session sees them, so a `WireLog` subscriber can react to a notification
before the response that follows it is delivered.

What this module does not do: speak MCP (that is `ClientSession`'s job) or decide what a failure
means for the model (that is `kitchen.mcp.client`'s).
"""

from __future__ import annotations

import logging
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

from .wire import TO_CLIENT, TO_SERVER, WireLog, json_object

logger = logging.getLogger(__name__)

EXIT_GRACE = 2.0  # seconds a server gets to exit on its own once its stdin is closed
KILL_GRACE = 1.0  # seconds between terminate and kill


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

    async def read_stdout() -> None:
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

    async def write_stdin() -> None:
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

    async def read_stderr() -> None:
        assert process.stderr is not None
        buffer = b""
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in process.stderr:
                *lines, buffer = (buffer + chunk).split(b"\n")
                link.stderr.extend(raw.decode("utf-8", errors="replace") for raw in lines)

    async with anyio.create_task_group() as tg:
        tg.start_soon(read_stdout)
        tg.start_soon(write_stdin)
        tg.start_soon(read_stderr)
        try:
            yield link
        finally:
            with anyio.CancelScope(shield=True):
                await stop_process(process)
            tg.cancel_scope.cancel()
    for stream in (to_session, session_reads, session_writes, from_session):
        stream.close()


async def _exited(process: anyio.abc.Process, seconds: float) -> bool:
    # Poll the exit code: on Python 3.11 `wait()` also waits for the pipes to close.
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.02)
    return process.returncode is not None


async def stop_process(process: anyio.abc.Process) -> int | None:
    """Close stdin, wait, terminate, wait, kill: every wait is bounded."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    if not await _exited(process, EXIT_GRACE):
        with suppress(ProcessLookupError):
            process.terminate()
        if not await _exited(process, KILL_GRACE):
            with suppress(ProcessLookupError):
                process.kill()
            if not await _exited(process, KILL_GRACE):
                logger.warning("MCP server process %s survived a kill", process.pid)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await pipe.aclose()
    with anyio.move_on_after(KILL_GRACE), suppress(Exception):
        await process.aclose()
    return process.returncode


@asynccontextmanager
async def open_http(url: str, wire: WireLog) -> AsyncIterator[Link]:
    """Connect to a streamable HTTP server at `url` (e.g. http://127.0.0.1:8765/mcp)."""
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (sdk_reads, sdk_writes):
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
