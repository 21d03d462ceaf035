"""Chapter 05's MCP server: the toy tools, and a few more, behind the official SDK's low-level `Server`.

Owns what `python -m kitchen.mcp` serves (newline-delimited JSON-RPC on stdio, or streamable
HTTP): the five toy tools; `save_memory` (agent-only: listed, hidden by the client);
`enable_weather`, which adds `get_weather` and sends `notifications/tools/list_changed`;
`my_notes`, whose `user_id` the server reads from `_meta["llm-kitchen/user_id"]`, which only the
client program writes, so the model can neither see nor forge it; with `--faults`, `stall` and
`crash`. Every `tools/call` is checked against its `inputSchema` first; errors come back as
`isError` results with their kind in `_meta["llm-kitchen/error_kind"]`, and only an unknown tool
is a JSON-RPC error (-32602), as the 2025-11-25 spec asks.

Does not hide tools or enforce timeouts (the client does), word its refusals (`kitchen.refusals`)
or authenticate anyone (over stdio its only client is the process that started it).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError

from kitchen import refusals
from kitchen.schemas import injected_params, to_mcp, tool_schema
from kitchen.toolbox import ErrorKind, as_content, validation_error
from kitchen.tools import TOY_TOOLS

from .conventions import ERROR_KIND_KEY, SERVER_NAME, SERVER_VERSION, check_sdk, context_key
from .server_tools import crash, get_weather, my_notes, stall

INSTRUCTIONS = ("Toy tools for the LLM Kitchen tutorial: a calculator, six nursery rhymes, a word "
                "counter, a pretend web and a pretend file tree.")


@dataclass
class ServerTool:
    """One tool as the server holds it: the function, its MCP view, and its injected parameters."""

    fn: Callable
    mcp: dict[str, Any]  # {"name", "description", "inputSchema"}, as tools/list sends it
    injected: dict[str, str] = field(default_factory=dict)  # parameter -> context key

    @classmethod
    def from_function(cls, fn: Callable) -> "ServerTool":
        return cls(fn, to_mcp(tool_schema(fn)), {p: m.key for p, m in injected_params(fn).items()})

    @property
    def name(self) -> str:
        return self.mcp["name"]


def text_result(text: str, error_kind: ErrorKind | None = None) -> types.CallToolResult:
    """A tools/call result with one text part; an error kind makes it `isError: true`."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                is_error=error_kind is not None,
                                _meta={ERROR_KIND_KEY: error_kind} if error_kind else None)


class ListChangingServer(Server):
    """The SDK's low-level `Server`, announcing `tools.listChanged: true` in its capabilities.

    The SDK only sets that flag when asked at `create_initialization_options()` time; asking here
    covers every transport, including the HTTP session manager, which calls it itself.
    """

    def create_initialization_options(self, notification_options: NotificationOptions | None = None,
                                      *args: Any, **kwargs: Any) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), *args, **kwargs)


class KitchenServer:
    """The tools, the server's own state (memory, switches), and the SDK `Server` that serves them.

    >>> kitchen = KitchenServer(faults=True)
    >>> [t["name"] for t in kitchen.listing()][-2:]
    ['stall', 'crash']
    """

    def __init__(self, *, faults: bool = False):
        check_sdk()
        self.faults = faults
        self.memory: list[str] = []
        self.tools: dict[str, ServerTool] = {}
        self.list_version = 0  # goes up whenever the tool list changes
        for fn in [*TOY_TOOLS, my_notes, self.save_memory, self.enable_weather]:
            self.add_tool(fn)
        if faults:
            self.add_tool(stall)
            self.add_tool(crash)
        self.server: Server = ListChangingServer(SERVER_NAME, version=SERVER_VERSION,
                                                 instructions=INSTRUCTIONS, on_list_tools=self._on_list_tools,
                                                 on_call_tool=self._on_call_tool)

    # -- the tools that act on the server itself ------------------------------------------------

    def save_memory(self, note: str) -> str:
        """Save a note to the assistant's long-term memory, for later conversations.

        Args:
            note: The note to keep, in one sentence.
        """
        self.memory.append(note)
        return f"Saved to memory (note {len(self.memory)}): {note}"

    def enable_weather(self) -> str:
        """Switch on the get_weather tool on this server. The application calls this; connected
        clients hear of the change through notifications/tools/list_changed.
        """
        if "get_weather" in self.tools:
            return "get_weather is already on."
        self.add_tool(get_weather)
        return "get_weather is on."

    # -- the registry ----------------------------------------------------------------------------

    def add_tool(self, fn: Callable) -> ServerTool:
        """Offer `fn` as a tool; clients hear about it with notifications/tools/list_changed."""
        tool = ServerTool.from_function(fn)
        self.tools[tool.name] = tool
        self.list_version += 1
        return tool

    def listing(self) -> list[dict[str, Any]]:
        """The tools as `tools/list` sends them (MCP view)."""
        return [json.loads(json.dumps(t.mcp)) for t in self.tools.values()]

    def initialization_options(self) -> InitializationOptions:
        """What `initialize` answers: server info, instructions and capabilities."""
        return self.server.create_initialization_options()

    # -- the handlers the SDK calls ----------------------------------------------------------------

    async def _on_list_tools(self, ctx: ServerRequestContext,
                             params: types.PaginatedRequestParams | None) -> dict[str, Any]:
        # A plain dict, so the schemas go out exactly as tool_schema built them.
        return {"tools": self.listing()}

    async def _on_call_tool(self, ctx: ServerRequestContext,
                            params: types.CallToolRequestParams) -> types.CallToolResult:
        version = self.list_version
        result = await self.run_tool(params.name, dict(params.arguments or {}), dict(params.meta or {}))
        if self.list_version != version:
            # Tied to this request, so the notification reaches the client before the result
            # (over HTTP it rides the same response stream). Over HTTP, other sessions sharing
            # this process are not told; they see the change at their next tools/list.
            await ctx.session.send_notification(types.ToolListChangedNotification(),
                                                related_request_id=ctx.request_id)
        return result

    async def run_tool(self, name: str, arguments: dict[str, Any], meta: dict[str, Any]) -> types.CallToolResult:
        """Check one call against the tool's schema, fill in injected values from `meta`, run it."""
        tool = self.tools.get(name)
        if tool is None:
            raise MCPError(code=types.INVALID_PARAMS, message=refusals.unknown_on_server(name, list(self.tools)))
        for param in tool.injected:
            if param in arguments:
                return text_result(refusals.injected_argument(name, param), "injected_argument")
        schema = tool.mcp["inputSchema"]
        if problem := validation_error(schema, arguments):
            return text_result(refusals.invalid_arguments(name, problem, schema), "invalid_arguments")
        kwargs = dict(arguments)
        for param, key in tool.injected.items():
            value = meta.get(context_key(key))
            if value in (None, ""):
                detail = f" (nothing in _meta[{context_key(key)!r}])"
                return text_result(refusals.missing_context(name, key, detail), "missing_context")
            kwargs[param] = value
        try:
            if inspect.iscoroutinefunction(tool.fn):
                value = await tool.fn(**kwargs)
            elif getattr(tool.fn, "__self__", None) is self:
                value = tool.fn(**kwargs)  # the server's own state: stay on the event loop
            else:
                value = await anyio.to_thread.run_sync(partial(tool.fn, **kwargs))
        except Exception as err:  # noqa: BLE001 - a failing tool is a result, not a crash
            return text_result(refusals.tool_failed(name, err), "tool_error")
        return text_result(as_content(value))


async def serve_stdio(kitchen: KitchenServer) -> None:
    """Serve one client on this process's stdin/stdout until stdin closes."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await kitchen.server.run(read_stream, write_stream, kitchen.initialization_options())


async def serve_http(kitchen: KitchenServer, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve streamable HTTP at http://host:port/mcp (localhost only by default).

    All sessions share this process, so they share its memory and its switches.
    """
    import uvicorn

    app = kitchen.server.streamable_http_app(host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
