"""Chapter 09's server: OpenAI's `/v1/chat/completions` and Anthropic's `/v1/messages` over one model.

A small Starlette app (the ASGI stack the `mcp` SDK already brings), served by uvicorn on
127.0.0.1 in a thread of the notebook's own process, so it runs the model the chapter loaded:

>>> from kitchen.model.scripted import ScriptedModel
>>> from openai import OpenAI
>>> with serve_api(ScriptedModel(["Hello."])) as api:
...     reply = OpenAI(base_url=api.url + "/v1", api_key="none").chat.completions.create(
...         model="local", messages=[{"role": "user", "content": "Hi"}])
>>> reply.choices[0].message.content, reply.choices[0].finish_reason
('Hello.', 'stop')

One request runs the model at a time (`Lock`); the others wait their turn. Every turn is kept in
`ApiServer.turns` (the prompt, the raw text, the calls), so a cell can show what the server did
with the request it just answered. A bad request is a 400 in the API's own error shape; a client
that goes away mid-stream stops its reply and leaves the server serving.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import anyio
import anyio.to_thread
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from kitchen.harness.api import anthropic_shape, openai_shape
from kitchen.harness.api.turns import ApiError, ApiTurn, ChatRequest, run_turn, stream_turn
from kitchen.model.interface import ChatModel
from kitchen.model.server.ports import free_port

KEEP_TURNS = 50  # the turns a server remembers for the notebook to show


@dataclass
class Shape:
    """What differs between the two APIs on the server's side: reading, writing, erring, streaming."""

    read: Callable[[Any], ChatRequest]
    respond: Callable[[ApiTurn, str], dict]
    error: Callable[[ApiError], dict]
    sse: Callable[[Iterator[tuple[str, Any]], str, dict], Iterator[str]]
    call_prefix: str


def openai_sse(events: Iterator[tuple[str, Any]], model: str, body: dict) -> Iterator[str]:
    usage = bool((body.get("stream_options") or {}).get("include_usage"))
    for chunk in openai_shape.chunks(events, model, usage):
        yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"
    yield "data: [DONE]\n\n"


def anthropic_sse(events: Iterator[tuple[str, Any]], model: str, body: dict) -> Iterator[str]:
    for event, data in anthropic_shape.events(events, model):
        yield f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


OPENAI = Shape(openai_shape.read_request, openai_shape.response, openai_shape.error_body, openai_sse, "call_")
ANTHROPIC = Shape(anthropic_shape.read_request, anthropic_shape.response, anthropic_shape.error_body,
                  anthropic_sse, "toolu_")


@dataclass
class ApiServer:
    """A running server: its `url`, the model behind it, and the turns it answered (latest last)."""

    model: ChatModel
    url: str = ""
    turns: list[ApiTurn] = field(default_factory=list)
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    stop: Callable[[], None] = lambda: None  # set by `start_api`: stops the server

    @property
    def last_turn(self) -> ApiTurn:
        if not self.turns:
            raise LookupError("The server has answered no request yet.")
        return self.turns[-1]

    def keep(self, turn: ApiTurn) -> None:
        self.turns.append(turn)
        del self.turns[:-KEEP_TURNS]

    def app(self) -> Starlette:
        """The ASGI app: the two APIs, and `/v1/models` naming the model."""
        return Starlette(routes=[
            Route("/v1/chat/completions", self.endpoint(OPENAI), methods=["POST"]),
            Route("/v1/messages", self.endpoint(ANTHROPIC), methods=["POST"]),
            Route("/v1/models", self.models, methods=["GET"]),
        ])

    async def models(self, request: Request) -> JSONResponse:
        name = self.model.info.model_name
        return JSONResponse({"object": "list", "data": [{"id": name, "object": "model", "owned_by": "llm-kitchen"}]})

    def endpoint(self, shape: Shape) -> Callable:
        async def answer(request: Request):
            try:
                body = json.loads(await request.body())
            except ValueError:
                return JSONResponse(shape.error(ApiError(400, "The body is not JSON.")), status_code=400)
            try:
                chat = shape.read(body)
                if chat.stream:
                    turn_events = stream_turn(self.model, chat, shape.call_prefix)
                    async with self.lock:  # a bad grammar raises here, before the stream's 200
                        first = await anyio.to_thread.run_sync(next, turn_events)
                    events = self.recorded(_chain(first, turn_events))
                    return StreamingResponse(self.pump(shape.sse(events, self.model.info.model_name, body)),
                                             media_type="text/event-stream")
                async with self.lock:
                    turn = await anyio.to_thread.run_sync(run_turn, self.model, chat, shape.call_prefix)
            except ApiError as err:
                return JSONResponse(shape.error(err), status_code=err.status)
            self.keep(turn)
            return JSONResponse(shape.respond(turn, self.model.info.model_name))  # the model that answered
        return answer

    def recorded(self, events: Iterator[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
        for kind, value in events:
            if kind == "done":
                self.keep(value)
            yield kind, value

    async def pump(self, lines: Iterator[str]):
        """Send a stream's lines as the model makes them, one request on the model at a time. If the
        client goes away, Starlette cancels this: the line being made finishes, the rest never starts."""
        async with self.lock:
            try:
                while (line := await anyio.to_thread.run_sync(next, lines, None)) is not None:
                    yield line
            finally:
                await anyio.to_thread.run_sync(_close, lines)


def _chain(first: Any, rest: Iterator) -> Iterator:
    yield first
    yield from rest


def _close(lines: Iterator[str]) -> None:
    close = getattr(lines, "close", None)
    if close:
        close()


def start_api(model: ChatModel, port: int | None = None, host: str = "127.0.0.1") -> ApiServer:
    """Serve `model` on http://`host`:`port` (a free port by default) until `ApiServer.stop()`.

    The server runs in a thread of this process, so the model is loaded once, by the notebook."""
    server = ApiServer(model)
    port = port or free_port()
    config = uvicorn.Config(server.app(), host=host, port=port, log_level="warning", lifespan="off")
    runner = uvicorn.Server(config)
    thread = threading.Thread(target=runner.run, name=f"api-{port}", daemon=True)
    thread.start()
    while not runner.started:
        if not thread.is_alive():
            raise RuntimeError(f"The API server could not start on {host}:{port}.")
        threading.Event().wait(0.02)
    server.url = f"http://{host}:{port}"

    def stop() -> None:
        runner.should_exit = True
        thread.join(timeout=10)
    server.stop = stop
    return server


@contextmanager
def serve_api(model: ChatModel, port: int | None = None, host: str = "127.0.0.1") -> Iterator[ApiServer]:
    """`start_api` for the length of a `with` block (requests still running at its end are cut)."""
    server = start_api(model, port, host)
    try:
        yield server
    finally:
        server.stop()
