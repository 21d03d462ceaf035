"""The harness's side of MCP: `MCPToolbox`, a `Toolbox` whose tools live on an MCP server.

Owns the connection: starting the server (`python -m kitchen.mcp`, stdio) or reaching a URL
(streamable HTTP), the 2025-11-25 handshake, `tools/list` (again after `list_changed`), sending
`tools/call` with the session's context in `_meta`, and turning every outcome, a dead server and a
timeout included, into a `ToolResult`, never an exception or a hung cell. The SDK is asynchronous;
each toolbox runs its event loop in a background thread and offers plain methods.

The structured side of 2025-11-25 tools: a result's `structuredContent` is validated against the
tool's `outputSchema` (the specification's "clients SHOULD validate"); one that does not conform
becomes a `tool_error` result, and one that does is kept on `ToolResult.structured` while the
model reads the text. With `confirm=`, a model's call of a tool whose `annotations` do not say
it is read-only waits for the application's confirmation (`kitchen.mcp.policy`).

Does not decide what the model may call (`kitchen.harness.toolbox.Toolbox.call`, shared with local tools),
read the pipes (`kitchen.mcp.transports`), explain failures (`kitchen.mcp.failures`) or draw
(`kitchen.mcp.views`).

>>> with MCPToolbox(context={"user_id": "ada"}) as box:
...     box.call("calculator", {"expression": "1234 * 5678"}).content
'7006652'
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
import weakref
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, AsyncIterator, Callable, Mapping, Sequence

import mcp.types as types
from anyio.from_thread import start_blocking_portal
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from kitchen.harness import refusals
from kitchen.views.display import HTML
from kitchen.tools.schemas import from_mcp
from kitchen.harness.toolbox import InjectedPolicy, Toolbox, ToolResult, check_policy, error_result, unknown_tool

from kitchen.mcp import failures, views
from kitchen.mcp.conventions import (AGENT_ONLY_TOOLS, CLIENT_NAME, ERROR_KIND_KEY, PROTOCOL_VERSION, SERVER_NAME,
                          check_sdk, context_key, server_command)
from kitchen.mcp.frames import TO_CLIENT, Frame, WireLog
from kitchen.mcp.policy import Confirm, ConfirmDestructive
from kitchen.mcp.structured import structured_problem
from kitchen.mcp.transports import Link, open_http, open_stdio

logger = logging.getLogger(__name__)

LIST_CHANGED = "notifications/tools/list_changed"
SAFETY_MARGIN = 5.0  # extra seconds the calling thread waits beyond a timeout the SDK enforces


class MCPConnectionError(RuntimeError):
    """The server could not be started, or the handshake failed."""


def result_text(content: Sequence[Mapping[str, Any]]) -> str:
    """A tools/call content list as the text the model reads: text parts joined by newlines.

    >>> result_text([{"type": "text", "text": "7006652"}, {"type": "image", "mimeType": "image/png", "data": "..."}])
    '7006652\\n[image/png content, not shown to the model]'
    """
    parts = []
    for part in content:
        if part.get("type") == "text":
            parts.append(part.get("text", ""))
        else:
            kind = part.get("mimeType") or part.get("type")
            parts.append(f"[{kind} content, not shown to the model]")
    return "\n".join(parts)


def to_tool_result(name: str, arguments: dict, result: types.CallToolResult, seconds: float,
                   output_schema: dict | None = None) -> ToolResult:
    """A `tools/call` result as the model reads it; an error's kind comes from the result's `_meta`.

    With the tool's `output_schema`, `structuredContent` must conform to it, or the result is a
    `tool_error`; a conforming one is kept on `ToolResult.structured`.
    """
    content = [part.model_dump(by_alias=True, mode="json", exclude_none=True) for part in result.content]
    text = result_text(content)
    if result.is_error:
        kind = (result.meta or {}).get(ERROR_KIND_KEY) or "tool_error"
        return error_result(name, arguments, kind, text, seconds)
    structured = result.structured_content
    if output_schema is not None and (problem := structured_problem(output_schema, structured)):
        return error_result(name, arguments, "tool_error", refusals.off_schema(name, problem), seconds)
    return ToolResult(name, arguments, True, text, None, seconds, structured=structured)


class MCPToolbox(Toolbox):
    """Tools served by chapter 05's MCP server (or any MCP server), for the harness.

    - `command`: how to start a stdio server; default `python -m kitchen.mcp` (plus `--faults`
      with `faults=True`, `--structured` with `structured=True`). `url` instead connects to a
      streamable HTTP server, and `token` is the learner's bearer token for a server that asks
      for a login (`kitchen.mcp.login`).
    - `hidden`: tool names the model never sees and may not call.
    - `context`: the application's session, sent in each call's `_meta` (`llm-kitchen/<key>`).
    - `injected_policy`: "reject" or "ignore" a context key the model writes as an argument.
    - `timeout`: seconds for each request after the handshake; `connect_timeout` for the handshake.
    - `wire`: the `WireLog` to fill (a new one by default), one per connection.
    - `env`: extra environment variables for the server process.
    - `confirm`: the application's confirmation before a model's call of a tool that may change
      something: a `Confirm` callable `(name, arguments) -> bool` or a `ConfirmDestructive`.
      None (the default) runs every call without asking, as chapter 05 does.

    The constructor raises `MCPConnectionError` if the server cannot be reached; after that,
    no method raises.
    """

    def __init__(self, command: Sequence[str] | None = None, *, url: str | None = None,
                 token: str | None = None, faults: bool = False, structured: bool = False,
                 hidden: Sequence[str] = AGENT_ONLY_TOOLS, context: Mapping[str, Any] | None = None,
                 injected_policy: InjectedPolicy = "reject", timeout: float = 10.0, connect_timeout: float = 30.0,
                 wire: WireLog | None = None, env: Mapping[str, str] | None = None,
                 confirm: Confirm | ConfirmDestructive | None = None):
        check_sdk()
        self.injected_policy = check_policy(injected_policy)
        if command is not None and url is not None:
            raise ValueError("give a command (stdio) or a url (HTTP), not both")
        if confirm is not None and not isinstance(confirm, ConfirmDestructive) and not callable(confirm):
            raise TypeError("confirm must be a callable (name, arguments) -> bool, a ConfirmDestructive, or None")
        self.confirm = ConfirmDestructive(confirm) if callable(confirm) else confirm
        self.url, self.token = url, token
        self.command = None if url else list(command or server_command(faults=faults, structured=structured))
        self.hidden = tuple(hidden)
        self.context = dict(context or {})
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self.wire = wire if wire is not None else WireLog()
        self.env = dict(env or {})
        self.initialize_result: dict[str, Any] = {}
        self.list_changes = 0  # notifications/tools/list_changed received so far
        self._tools: dict[str, dict[str, Any]] = {}
        self._stale = False
        self._failure: str | None = None
        self._closed = False
        self._link: Link | None = None
        self.wire.subscribe(self._on_frame)
        self._session = self._connect()

    # -- connecting -----------------------------------------------------------------------------

    def _connect(self) -> ClientSession:
        """Start the event-loop thread and open the session in it; MCPConnectionError on failure."""
        portal_cm = start_blocking_portal(name="MCPToolbox event loop")
        self._portal = portal_cm.__enter__()
        session_cm = self._portal.wrap_async_context_manager(self._open())
        # Runs at close(), or when the interpreter exits if close() was never called.
        self._finalizer = weakref.finalize(self, _shut_down, portal_cm, session_cm)
        try:
            return session_cm.__enter__()
        except BaseException as err:
            self._closed = True
            self._finalizer.detach()
            portal_cm.__exit__(None, None, None)
            if not isinstance(err, Exception):
                raise  # KeyboardInterrupt and friends pass through as they are
            where = self.url or " ".join(self.command or [])
            raise MCPConnectionError(failures.connect_error(where, err, self._link)) from err

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[ClientSession]:
        async with AsyncExitStack() as stack:
            if self.url:
                self._link = await stack.enter_async_context(open_http(self.url, self.wire, self.token))
            else:
                assert self.command is not None
                self._link = await stack.enter_async_context(open_stdio(self.command, self.wire, env=self.env))
            session = await stack.enter_async_context(ClientSession(
                self._link.read_stream, self._link.write_stream, read_timeout_seconds=self.timeout,
                client_info=types.Implementation(name=CLIENT_NAME, version="0.1.0")))
            await self._handshake(session)
            self._tools = await self._list_tools(session)
            yield session

    async def _handshake(self, session: ClientSession) -> None:
        """`initialize` with the pinned version, then `notifications/initialized`.

        `ClientSession.initialize()` would offer the SDK's newest handshake version, whatever it
        is by then; sending the request ourselves keeps the chapter's version fixed.
        """
        request = types.InitializeRequest(params=types.InitializeRequestParams(
            protocol_version=PROTOCOL_VERSION, capabilities=types.ClientCapabilities(),
            client_info=types.Implementation(name=CLIENT_NAME, version="0.1.0")))
        result = await session.send_request(request, types.InitializeResult,
                                            request_read_timeout_seconds=self.connect_timeout)
        if result.protocol_version != PROTOCOL_VERSION:
            raise MCPConnectionError(f"the server answered protocol version {result.protocol_version}; "
                                     f"this client speaks {PROTOCOL_VERSION} only")
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
        self.initialize_result = result.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def _list_tools(self, session: ClientSession) -> dict[str, dict[str, Any]]:
        tools: dict[str, dict[str, Any]] = {}
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=params)
            for tool in result.tools:
                tools[tool.name] = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
            cursor = result.next_cursor
            if not cursor:
                return tools

    def _on_frame(self, frame: Frame) -> None:
        # Runs on the event-loop thread as the frame arrives, before the session reads it.
        if frame.direction == TO_CLIENT and frame.method == LIST_CHANGED:
            self._stale = True
            self.list_changes += 1

    # -- what the connection knows --------------------------------------------------------------

    @property
    def protocol_version(self) -> str | None:
        return self.initialize_result.get("protocolVersion")

    @property
    def server_info(self) -> dict[str, Any]:
        return self.initialize_result.get("serverInfo", {})

    @property
    def capabilities(self) -> dict[str, Any]:
        return self.initialize_result.get("capabilities", {})

    @property
    def pid(self) -> int | None:
        """The server process's id (stdio only)."""
        return self._link.pid if self._link else None

    @property
    def alive(self) -> bool:
        """True while the connection can carry calls."""
        return not (self._closed or self._failure or (self._link and self._link.closed.is_set()))

    # -- the tools ------------------------------------------------------------------------------

    @property
    def tools(self) -> list[dict[str, Any]]:
        """Every tool on the server, hidden ones included, in the MCP view (a copy)."""
        self._refresh_if_stale()
        return [dict(t) for t in self._tools.values()]

    def schemas(self) -> list[dict]:
        """The chat-template view of the tools the model may see (hidden ones left out)."""
        self._refresh_if_stale()
        return [from_mcp(t) for name, t in self._tools.items() if name not in self.hidden]

    def visible_names(self) -> list[str]:
        return [name for name in self._tools if name not in self.hidden]

    def _declared(self, name: str) -> list[str]:
        """The parameter names a tool's `inputSchema` declares."""
        return list((self._tools[name].get("inputSchema") or {}).get("properties", {}))

    def refresh(self) -> list[dict[str, Any]]:
        """Run `tools/list` now and return every tool (MCP view)."""
        self._stale = False
        if self.alive:
            try:
                self._tools = self._await(self._list_tools, self._session, timeout=self.timeout)
            except Exception as err:  # noqa: BLE001 - keep the old list; the next call reports the failure
                logger.warning("tools/list failed: %s", failures.describe(err))
                self._note_failure(err)
        return self.tools

    def _refresh_if_stale(self) -> None:
        if self._stale:
            self.refresh()

    # -- calls: the hooks of `Toolbox.call` -----------------------------------------------------

    def call_as_application(self, name: str, arguments: dict | None = None) -> ToolResult:
        """A call made by the application itself: hidden tools allowed (e.g. `enable_weather`)."""
        return self._checked_call(name, dict(arguments or {}), from_model=False)

    def _listed(self, *, include_hidden: bool) -> list[str]:
        return list(self._tools) if include_hidden else self.visible_names()

    def _out_of_service(self, name: str, arguments: dict) -> ToolResult | None:
        return None if self.alive else error_result(name, arguments, "server_error", self._failure_message(name))

    def _has(self, name: str) -> bool:
        self._refresh_if_stale()
        return name in self._tools

    def _injected_keys(self, name: str) -> list[str]:
        declared = self._declared(name)
        return [k for k in self.context if k not in declared]

    def _held(self, name: str, args: dict, arguments: dict) -> ToolResult | None:
        return None if self.confirm is None else self.confirm.check(name, args, arguments, self._tools.get(name, {}))

    def _run(self, name: str, args: dict, arguments: dict, timeout: float) -> ToolResult:
        meta = {context_key(k): v for k, v in self.context.items()} or None
        t0 = time.perf_counter()
        try:
            result: types.CallToolResult = self._await(self._call_tool, name, args, meta, timeout,
                                                       timeout=timeout + SAFETY_MARGIN)
        except Exception as err:  # noqa: BLE001 - every failure becomes a result
            return self._failure_result(name, arguments, err, time.perf_counter() - t0)
        return to_tool_result(name, arguments, result, time.perf_counter() - t0,
                              self._tools.get(name, {}).get("outputSchema"))

    async def _call_tool(self, name: str, args: dict, meta: dict | None, timeout: float) -> types.CallToolResult:
        # Sent as a plain request: `ClientSession.call_tool` would raise on a structuredContent that
        # does not fit its outputSchema, and `to_tool_result` turns that into a result instead.
        request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=args, _meta=meta))
        return await self._session.send_request(request, types.CallToolResult, request_read_timeout_seconds=timeout)

    # -- failures -------------------------------------------------------------------------------

    def _failure_result(self, name: str, arguments: dict, err: BaseException, seconds: float) -> ToolResult:
        failure = failures.classify(err)
        if failure == "timeout":
            return error_result(name, arguments, "timeout", refusals.timed_out(name, self.timeout), seconds)
        if failure == "unknown_tool":
            return unknown_tool(name, arguments, self.visible_names(), " on the server", seconds)
        if failure == "refused":
            assert isinstance(err, MCPError)
            return error_result(name, arguments, "server_error",
                                refusals.server_refused(name, err.code, err.message), seconds)
        self._note_failure(err)
        return error_result(name, arguments, "server_error", self._failure_message(name), seconds)

    def _note_failure(self, err: BaseException) -> None:
        if self._failure is None:
            self._failure = failures.lost_connection(err, self._link)

    def _failure_message(self, name: str) -> str:
        if self._closed:
            reason = "this toolbox has been closed"
        else:
            if self._failure is None and self._link and self._link.closed.is_set():
                self._failure = failures.stopped_reason(self._link)
            reason = self._failure or "the connection is down"
        return refusals.could_not_run(name, reason)

    # -- running async code from this thread ----------------------------------------------------

    def _await(self, fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
        future = self._portal.start_task_soon(fn, *args)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"no answer within {timeout:g} s") from None

    # -- showing --------------------------------------------------------------------------------

    def tool_table(self) -> HTML:
        """Every tool on the server: shown to the model or hidden, and its parameters."""
        return views.tool_table([(name, name in self.hidden, self._declared(name)) for name in self._tools])

    def __repr__(self) -> str:
        where = self.url or f"stdio, pid {self.pid}"
        state = "open" if self.alive else ("closed" if self._closed else "down")
        return (f"MCPToolbox({where}, {self.server_info.get('name', SERVER_NAME)}, protocol "
                f"{self.protocol_version}, {len(self.visible_names())} tools shown, "
                f"{len(self._tools) - len(self.visible_names())} hidden, {state})")

    # -- closing --------------------------------------------------------------------------------

    def close(self) -> None:
        """End the session, stop the server process (stdio) and the event-loop thread."""
        self._closed = True
        self._finalizer()  # does nothing the second time

    def __enter__(self) -> "MCPToolbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _shut_down(portal_cm: Any, session_cm: Any) -> None:
    """End the session (which stops the server process, see `kitchen.mcp.processes`), then the thread."""
    try:
        session_cm.__exit__(None, None, None)
    except Exception as err:  # noqa: BLE001 - closing must finish
        logger.debug("closing the MCP session: %s", failures.describe(err))
    finally:
        portal_cm.__exit__(None, None, None)
