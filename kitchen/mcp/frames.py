"""The wire, frame by frame: every JSON-RPC 2.0 message between harness and MCP server, recorded.

- `Frame`: one message, its direction ("→" client to server, "←" server to client), when it
  crossed (seconds since the log started) and, on stdio, the exact line that was written.
- `WireLog`: the frames of one connection, in order. It matches each response to the request it
  answers, so a response knows its method; it filters by method, and it shows itself as text, or
  as a two-sided conversation in a notebook (the HTML is `kitchen.mcp.views`'s).
- `summarize`: what a frame says, in one line, for the methods the chapter shows.

The log is filled by the transport (`kitchen.mcp.transports`) or by `kitchen.mcp.raw_session`;
this module does not speak MCP or touch a process, it only records and describes.

>>> log = WireLog()
>>> _ = log.record("→", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
>>> _ = log.record("←", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
>>> [(f.direction, f.kind, f.method) for f in log]
[('→', 'request', 'tools/list'), ('←', 'response', 'tools/list')]
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Final, Iterator, Literal, Sequence

from kitchen.views.display import HTML

from kitchen.mcp import views

Direction = Literal["→", "←"]
FrameKind = Literal["request", "notification", "response", "error", "invalid"]  # "invalid": not JSON-RPC at all
TO_SERVER: Final = "→"
TO_CLIENT: Final = "←"


@dataclass(frozen=True)
class Frame:
    """One JSON-RPC message on the wire."""

    direction: Direction  # "→" client to server, "←" server to client
    message: dict[str, Any]
    time: float  # seconds since the log started
    raw: str | None = None  # the line exactly as written, when the transport has lines
    method: str | None = None  # a response's method is the one of the request it answers

    @property
    def id(self) -> Any:
        return self.message.get("id")

    @property
    def kind(self) -> FrameKind:
        """"request", "notification", "response", "error" or "invalid" (not JSON-RPC at all)."""
        m = self.message
        if "method" in m:
            return "request" if "id" in m else "notification"
        if "error" in m:
            return "error"
        if "result" in m:
            return "response"
        return "invalid"

    @property
    def sender(self) -> Literal["client", "server"]:
        return "client" if self.direction == TO_SERVER else "server"

    @property
    def is_error_result(self) -> bool:
        """A tools/call result with `isError: true` (a failure the model reads, not a JSON-RPC error)."""
        result = self.message.get("result")
        return isinstance(result, dict) and result.get("isError") is True

    def summary(self) -> str:
        """A few words on what the frame says, e.g. `calculator({"expression": "2+2"})`."""
        return summarize(self)

    def headline(self) -> str:
        """`→ request #3 tools/call`"""
        ident = f" #{self.id}" if self.id is not None else ""
        return f"{self.direction} {self.kind}{ident} {self.method or ''}".rstrip()

    def pretty(self) -> str:
        return json.dumps(self.message, indent=2, ensure_ascii=False)


def _short(value: Any, limit: int = 90) -> str:
    """`value` on one line (JSON unless a str), cut to `limit` characters.

    >>> _short({"a": "x  y"}, 8)
    '{"a": "…'
    """
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def summarize(frame: Frame) -> str:
    """What a frame says, in one line, for the methods the chapter shows."""
    try:
        return _summarize(frame)
    except (AttributeError, KeyError, TypeError):  # a frame shaped unlike the spec
        return _short(frame.message or frame.raw or "", 90)


def _summarize(frame: Frame) -> str:
    m, method = frame.message, frame.method
    params, result = m.get("params") or {}, m.get("result")
    if frame.kind == "invalid":
        return f"not JSON-RPC: {_short(frame.raw or m)}"
    if frame.kind == "error":
        err = m["error"]
        data = f" ({_short(err['data'], 60)})" if err.get("data") not in (None, "") else ""
        return f"error {err.get('code')}: {_short(err.get('message', ''), 80)}{data}"
    if frame.kind == "request" and method == "initialize":
        client = params.get("clientInfo") or {}
        return f"protocolVersion {params.get('protocolVersion')}, client {client.get('name')} {client.get('version', '')}".rstrip()
    if frame.kind == "response" and method == "initialize":
        server = result.get("serverInfo") or {}
        caps = ", ".join(f"{k}{'(listChanged)' if isinstance(v, dict) and v.get('listChanged') else ''}"
                         for k, v in (result.get("capabilities") or {}).items())
        return (f"protocolVersion {result.get('protocolVersion')}, server {server.get('name')} "
                f"{server.get('version', '')}, capabilities: {caps or 'none'}")
    if frame.kind == "response" and method == "tools/list":
        names = [t.get("name") for t in result.get("tools", [])]
        return f"{len(names)} tools: {', '.join(map(str, names))}"
    if frame.kind == "request" and method == "tools/call":
        meta = params.get("_meta")
        extra = f"  _meta {_short(meta, 60)}" if meta else ""
        return f"{params.get('name', '(no name)')}({_short(params.get('arguments') or {}, 70)}){extra}"
    if frame.kind == "response" and method == "tools/call":
        parts = [p.get("text", f"[{p.get('type')}]") for p in result.get("content", [])]
        flag = "isError " if result.get("isError") else ""
        return f"{flag}{_short(' '.join(parts), 90)}"
    if method == "notifications/tools/list_changed":
        return "the server's tool list changed"
    if method == "notifications/cancelled":
        return f"cancel request #{params.get('requestId')}: {params.get('reason', '')}"
    if frame.kind == "notification":
        return _short(params, 80) if params else ""
    if frame.kind == "request":
        return _short(params, 80) if params else ""
    return _short(result, 80)


class WireLog:
    """The frames of one connection, in the order they crossed; thread-safe.

    `subscribe(fn)` calls `fn(frame)` for every new frame, in order, on the thread that records it.
    """

    def __init__(self, frames: Sequence[Frame] = ()):
        self._frames: list[Frame] = list(frames)
        self._lock = threading.Lock()
        self._start = time.perf_counter()
        self._open: dict[tuple[str, Any], str] = {}  # (direction, id) of requests awaiting an answer
        self._listeners: list[Callable[[Frame], None]] = []

    # -- recording ------------------------------------------------------------------------------

    def record(self, direction: Direction, message: dict[str, Any] | None, raw: str | None = None) -> Frame:
        """Add one frame; `message` None means the line was not JSON (kept in `raw`)."""
        if direction not in (TO_SERVER, TO_CLIENT):
            raise ValueError(f"direction must be {TO_SERVER!r} or {TO_CLIENT!r}")
        message = message if isinstance(message, dict) else {}
        with self._lock:
            method = message.get("method")
            key = message.get("id")
            if method is not None and key is not None:
                self._open[(direction, _id_key(key))] = method
            elif method is None and key is not None:
                other = TO_CLIENT if direction == TO_SERVER else TO_SERVER
                method = self._open.pop((other, _id_key(key)), None)
            frame = Frame(direction, message, round(time.perf_counter() - self._start, 6), raw, method)
            self._frames.append(frame)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(frame)
        return frame

    def subscribe(self, listener: Callable[[Frame], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def clear(self) -> None:
        """Forget the frames so far (the clock and open requests stay)."""
        with self._lock:
            self._frames.clear()

    # -- reading --------------------------------------------------------------------------------

    @property
    def frames(self) -> list[Frame]:
        with self._lock:
            return list(self._frames)

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[Frame]:
        return iter(self.frames)

    def __getitem__(self, index: int) -> Frame:
        return self.frames[index]

    def methods(self) -> list[str]:
        """The methods seen, in order of first appearance."""
        seen: dict[str, None] = {}
        for f in self.frames:
            if f.method:
                seen.setdefault(f.method, None)
        return list(seen)

    def filter(self, method: str | Sequence[str] | None = None, *, direction: Direction | None = None,
               kind: FrameKind | None = None) -> "WireLog":
        """A new log with only the matching frames; a method ending in "/" matches a prefix:
        `log.filter("tools/call")`, `log.filter("notifications/")`, `log.filter(direction="←")`."""
        wanted = [method] if isinstance(method, str) else list(method or [])

        def match(f: Frame) -> bool:
            if wanted and not any((f.method or "").startswith(w) if w.endswith("/") else f.method == w
                                  for w in wanted):
                return False
            return (direction is None or f.direction == direction) and (kind is None or f.kind == kind)

        return WireLog([f for f in self.frames if match(f)])

    # -- showing --------------------------------------------------------------------------------

    def text(self, times: bool = True) -> str:
        """One line per frame: time, direction, kind, id, method and a summary.

        `times=False` leaves the times out, so the text is the same on every run.
        """
        lines = [f"{len(self)} frames (→ client to server, ← server to client)"]
        for f in self.frames:
            when = f"{f.time:8.3f}s  " if times else ""
            lines.append(f"{when}{f.headline():<44} {f.summary()}".rstrip())
        return "\n".join(lines)

    def view(self, last: int | None = None, times: bool = True) -> HTML:
        """The conversation as two columns, client left and server right; raw JSON unfolds."""
        frames = self.frames[-last:] if last else self.frames
        return views.conversation(frames, WireLog(frames).text(times), times)

    def _repr_html_(self) -> str:
        return self.view()._repr_html_()

    def __repr__(self) -> str:
        return self.text()


def _id_key(value: Any) -> str:
    return json.dumps(value)


def json_object(line: str) -> dict[str, Any] | None:
    """A line of JSON as a dict, or None when it is not a JSON object (what the wire log records).

    >>> json_object('{"id": 1}'), json_object("[1]"), json_object("not json")
    ({'id': 1}, None, None)
    """
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
