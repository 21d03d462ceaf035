"""Chapter 05's MCP server: the toy tools, and a few more, behind the official SDK's low-level `Server`.

Owns what `python -m kitchen.mcp` serves (newline-delimited JSON-RPC on stdio, or streamable
HTTP): the five toy tools; `save_memory` (agent-only: listed, hidden by the client);
`enable_weather`, which adds `get_weather` and sends `notifications/tools/list_changed`;
`my_notes`, whose `user_id` the server reads from `_meta["llm-kitchen/user_id"]`, which only the
client program writes, so the model can neither see nor forge it; with `--faults`, `stall` and
`crash`. With a room (`kitchen.mcp.login`, HTTP only) the user id comes from the learner's
verified bearer token instead, whatever `_meta` says, and each learner has a notebook of their own
that `save_memory` writes to and `my_notes` reads. Every `tools/call` is checked against its `inputSchema` first; errors come back as
`isError` results with their kind in `_meta["llm-kitchen/error_kind"]`, and only an unknown tool
is a JSON-RPC error (-32602), as the 2025-11-25 spec asks.

With `--structured` (`KitchenServer(structured=True)`) it also publishes the structured side of
the 2025-11-25 tools (`kitchen.mcp.structured`): `outputSchema` (`count_words`), whose results
carry `structuredContent` beside the same JSON as text; `annotations` on every tool; input
schemas with `"additionalProperties": false`; and a destructive `delete_file` over the server's
own copy of the pretend file tree, which its `browse_files` then reads (the real `data/` and the
shared tree are never changed).

Does not hide tools or enforce timeouts (the client does), word its refusals (`kitchen.harness.refusals`)
or authenticate anyone itself (over stdio its only client is the process that started it; over
HTTP with a room, the SDK's bearer middleware checks each request's token before it gets here).
"""

from __future__ import annotations

import contextvars
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

from kitchen.harness import refusals
from kitchen.tools.schemas import injected_params, to_mcp, tool_schema
from kitchen.harness.toolbox import ErrorKind, as_content, arguments_error
from kitchen.tools import TOY_TOOLS
from kitchen.tools.files import Tree, browse_tree, pretend_tree, remove_file

from kitchen.mcp.conventions import ERROR_KIND_KEY, SERVER_NAME, SERVER_VERSION, check_sdk, context_key
from kitchen.mcp.login import RoomTokens, verified_learner
from kitchen.mcp.more_tools import NOTES, crash, get_weather, my_notes, search_notes, stall
from kitchen.mcp.structured import structured_problem, structured_view

# The learner whose verified token made the current call (room mode only).
LEARNER: contextvars.ContextVar[str | None] = contextvars.ContextVar("kitchen_learner", default=None)
INSTRUCTIONS = ("Toy tools for the LLM Kitchen tutorial: a calculator, six nursery rhymes, a word "
                "counter, a pretend web and a pretend file tree.")


@dataclass
class ServerTool:
    """One tool as the server holds it: the function, its MCP view, and its injected parameters."""

    fn: Callable
    mcp: dict[str, Any]  # as tools/list sends it: {"name", "description", "inputSchema"}, and with
    #                      --structured "outputSchema" and "annotations"
    injected: dict[str, str] = field(default_factory=dict)  # parameter -> context key

    @classmethod
    def from_function(cls, fn: Callable, *, structured: bool = False) -> "ServerTool":
        view = to_mcp(tool_schema(fn))
        return cls(fn, structured_view(view, fn) if structured else view,
                   {p: m.key for p, m in injected_params(fn).items()})

    @property
    def name(self) -> str:
        return self.mcp["name"]


def text_result(text: str, error_kind: ErrorKind | None = None,
                structured: dict[str, Any] | None = None) -> types.CallToolResult:
    """A tools/call result with one text part; an error kind makes it `isError: true`; `structured`
    goes in `structuredContent`."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                is_error=error_kind is not None, structured_content=structured,
                                _meta={ERROR_KIND_KEY: error_kind} if error_kind else None)


def value_result(tool: ServerTool, value: Any) -> types.CallToolResult:
    """What a tool returned, as a result. With an `outputSchema` (spec 2025-11-25, "Output Schema"),
    the value goes in `structuredContent`, which MUST conform to the schema (checked here first),
    and the same JSON goes in the text part for clients that read only text.
    """
    schema = tool.mcp.get("outputSchema")
    if schema is None:
        return text_result(as_content(value))
    if problem := structured_problem(schema, value):
        return text_result(refusals.off_schema(tool.name, problem), "tool_error")
    return text_result(as_content(value), structured=value)


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
    >>> KitchenServer(structured=True).listing()[-1]["annotations"]["destructiveHint"]
    True
    """

    def __init__(self, *, faults: bool = False, room: RoomTokens | None = None, structured: bool = False):
        check_sdk()
        self.faults = faults
        self.room = room
        self.structured = structured
        self.files: Tree = pretend_tree()  # this server's own copy: delete_file changes it, nothing else
        self.memory: list[str] = []
        # In a room, each learner's notebook: the made-up users' notes for those names, else empty.
        self.notebooks: dict[str, list[str]] = {name: list(NOTES.get(name, [])) for name in (room.tokens if room else [])}
        self.tools: dict[str, ServerTool] = {}
        self.list_version = 0  # goes up whenever the tool list changes
        for fn in [*TOY_TOOLS, my_notes, self.save_memory, self.enable_weather]:
            self.add_tool(fn)
        if faults:
            self.add_tool(stall)
            self.add_tool(crash)
        if structured:
            self.add_tool(self.delete_file)
            self.tools["browse_files"].fn = self.browse_own_files  # same tool and schema, this server's copy
        if room:
            self.tools["my_notes"].fn = self.room_notes  # same tool and schema, the room's notebooks behind it
        self.server: Server = ListChangingServer(SERVER_NAME, version=SERVER_VERSION,
                                                 instructions=INSTRUCTIONS, on_list_tools=self._on_list_tools,
                                                 on_call_tool=self._on_call_tool)

    # -- the tools that act on the server itself ------------------------------------------------

    def save_memory(self, note: str) -> str:
        """Save a note to the assistant's long-term memory, for later conversations.

        Args:
            note: The note to keep, in one sentence.
        """
        learner = LEARNER.get()
        if learner is not None:
            notebook = self.notebooks.setdefault(learner, [])
            notebook.append(note)
            return f"Saved to {learner}'s notes (note {len(notebook)}): {note}"
        self.memory.append(note)
        return f"Saved to memory (note {len(self.memory)}): {note}"

    def room_notes(self, query: str, user_id: str) -> str:
        """`my_notes` in a room: the search, over the learner's own notebook."""
        return search_notes(self.notebooks.get(user_id, []), user_id, query)

    def enable_weather(self) -> str:
        """Switch on the get_weather tool on this server. The application calls this; connected
        clients hear of the change through notifications/tools/list_changed.
        """
        if "get_weather" in self.tools:
            return "get_weather is already on."
        self.add_tool(get_weather)
        return "get_weather is on."

    def delete_file(self, path: str) -> str:
        """Delete a file from the user's pretend file tree, for good: there is no undo and no bin.
        Only files can be deleted, one at a time, not folders; browse_files shows what there is.

        Args:
            path: The file to delete, relative to the top folder, as folder/file (such as notes/todo.md).
        """
        where, content = remove_file(self.files, path)
        return f"Deleted {where} ({len(content)} characters)."

    def browse_own_files(self, path: str = ".") -> dict:
        """`browse_files` with `--structured`: over this server's own copy, the one `delete_file` changes."""
        return browse_tree(self.files, path)

    # -- the registry ----------------------------------------------------------------------------

    def add_tool(self, fn: Callable) -> ServerTool:
        """Offer `fn` as a tool; clients hear about it with notifications/tools/list_changed."""
        tool = ServerTool.from_function(fn, structured=self.structured)
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
        meta = dict(params.meta or {})
        if self.room is not None:
            learner = verified_learner(ctx.request)
            if learner is None:  # the bearer middleware lets no such request through; refuse anyway
                return text_result(refusals.missing_context(params.name, "user_id", " (no verified login)"),
                                   "missing_context")
            meta[context_key("user_id")] = learner  # the token says who; a client-asserted value is replaced
            LEARNER.set(learner)
        result = await self.run_tool(params.name, dict(params.arguments or {}), meta)
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
        if problem := arguments_error(schema, arguments):
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
        return value_result(tool, value)


async def serve_stdio(kitchen: KitchenServer) -> None:
    """Serve one client on this process's stdin/stdout until stdin closes."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await kitchen.server.run(read_stream, write_stream, kitchen.initialization_options())


async def serve_http(kitchen: KitchenServer, *, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve streamable HTTP at http://host:port/mcp (localhost only by default).

    All sessions share this process, so they share its memory and its switches. With a room
    (`kitchen.room`), every request must carry a learner's bearer token, checked by the SDK's
    bearer middleware with `RoomTokens` as the verifier: none, or a wrong one, gets 401.
    """
    import uvicorn

    auth = {}
    if kitchen.room is not None:
        from mcp.server.auth.settings import AuthSettings

        url = f"http://{host}:{port}"
        auth = {"auth": AuthSettings(issuer_url=url, resource_server_url=f"{url}/mcp", required_scopes=[]),
                "token_verifier": kitchen.room}
    app = kitchen.server.streamable_http_app(host=host, **auth)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()
