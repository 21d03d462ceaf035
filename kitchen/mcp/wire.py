"""The wire, frame by frame: every JSON-RPC 2.0 message between harness and MCP server.

- `Frame`: one message, its direction ("→" client to server, "←" server to client), when it
  crossed (seconds since the log started) and, on stdio, the exact line that was written.
- `WireLog`: the frames of one connection, in order. It matches each response to the request it
  answers, so a response knows its method; it filters by method, and it shows itself as a
  two-sided conversation (HTML in a notebook, plain text anywhere else).
- `RawSession`: start the server and talk to it with frames you write yourself, one JSON line
  at a time, reading its answers with a timeout. Handy to compare hand-written frames with what
  the SDK client sends, and to see the errors (-32601, -32602) that the SDK client never provokes.

The log is filled by the transport (`kitchen.mcp.transports`, which reads and writes the lines
itself) or by `RawSession`; this module does not speak MCP, it only records and shows it.

>>> log = WireLog()
>>> _ = log.record("→", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
>>> _ = log.record("←", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
>>> [(f.direction, f.kind, f.method) for f in log]
[('→', 'request', 'tools/list'), ('←', 'response', 'tools/list')]
"""

from __future__ import annotations

import html
import json
import os
import queue
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from kitchen.display import HTML

from .conventions import CLIENT_NAME, PROTOCOL_VERSION, server_command

TO_SERVER, TO_CLIENT = "→", "←"
CLIENT_COLOUR, SERVER_COLOUR, ERROR_COLOUR = "#d8ecff", "#e5f7dc", "#fde2e4"


@dataclass(frozen=True)
class Frame:
    """One JSON-RPC message on the wire."""

    direction: str  # "→" client to server, "←" server to client
    message: dict[str, Any]
    time: float  # seconds since the log started
    raw: str | None = None  # the line exactly as written, when the transport has lines
    method: str | None = None  # a response's method is the one of the request it answers

    @property
    def id(self) -> Any:
        return self.message.get("id")

    @property
    def kind(self) -> str:
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
    def sender(self) -> str:
        return "client" if self.direction == TO_SERVER else "server"

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

    def record(self, direction: str, message: dict[str, Any] | None, raw: str | None = None) -> Frame:
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

    def filter(self, method: str | Sequence[str] | None = None, *, direction: str | None = None,
               kind: str | None = None) -> "WireLog":
        """A new log with only the matching frames; a method ending in "/" matches a prefix.

        >>> log.filter("tools/call").frames          # doctest: +SKIP
        >>> log.filter("notifications/")             # doctest: +SKIP
        """
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
        rows = []
        for f in frames:
            colour = ERROR_COLOUR if f.kind in ("error", "invalid") or _is_error_result(f) else (
                CLIENT_COLOUR if f.direction == TO_SERVER else SERVER_COLOUR)
            align = "flex-start" if f.direction == TO_SERVER else "flex-end"
            body = html.escape(f.pretty())
            raw_block = (f"<div style='font-size:80%;color:#555;margin-top:2px'>exact line on the wire:</div>"
                         f"<pre style='margin:0;white-space:pre-wrap;word-break:break-all'>{html.escape(f.raw)}</pre>"
                         if f.raw is not None else "")
            when = f" · {f.time:.3f} s" if times else ""
            rows.append(
                f"<div style='display:flex;justify-content:{align};margin:3px 0'>"
                f"<div style='max-width:72%;background:{colour};color:#111;border-radius:6px;padding:3px 8px'>"
                f"<div style='font-family:monospace;font-size:85%'><b>{html.escape(f.headline())}</b>"
                f" <span style='color:#555'>· {f.sender}{when}</span></div>"
                f"<div style='font-family:monospace;white-space:pre-wrap'>{html.escape(f.summary())}</div>"
                f"<details><summary style='font-size:80%;cursor:pointer'>JSON</summary>"
                f"<pre style='margin:0;white-space:pre-wrap'>{body}</pre>{raw_block}</details>"
                f"</div></div>")
        head = (f"<div style='display:flex;justify-content:space-between;font-weight:bold;font-size:90%'>"
                f"<span>client (the harness) →</span><span>{len(frames)} frames</span>"
                f"<span>← server (python -m kitchen.mcp)</span></div>")
        text = WireLog(frames).text(times)
        return HTML(f"<div style='font-size:90%'>{head}{''.join(rows)}</div>", text)

    def _repr_html_(self) -> str:
        return self.view()._repr_html_()

    def __repr__(self) -> str:
        return self.text()


def _id_key(value: Any) -> str:
    return json.dumps(value)


def _is_error_result(frame: Frame) -> bool:
    result = frame.message.get("result")
    return isinstance(result, dict) and result.get("isError") is True


def json_object(line: str) -> dict[str, Any] | None:
    """A line of JSON as a dict, or None when it is not a JSON object (what the wire log records)."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class RawSession:
    """Chapter 05's server, spoken to by hand: write JSON lines, read the answers.

    >>> with RawSession() as raw:                                              # doctest: +SKIP
    ...     raw.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
    ...                                "clientInfo": {"name": "me", "version": "0"}})
    ...     raw.notify("notifications/initialized")
    ...     raw.request("tools/list")["result"]["tools"][0]["name"]
    'calculator'

    Nothing is checked on the way out: `send` writes whatever it is given (a dict as one JSON
    line, a str verbatim), so malformed frames can be tried too. Every frame, both ways, goes to
    `wire`. Reading blocks at most `timeout` seconds and then raises `TimeoutError`.
    """

    def __init__(self, command: Sequence[str] | None = None, *, faults: bool = False,
                 wire: WireLog | None = None, timeout: float = 10.0, env: dict[str, str] | None = None):
        self.command = list(command or server_command(faults=faults))
        self.wire = wire if wire is not None else WireLog()
        self.timeout = timeout
        self.stderr: deque[str] = deque(maxlen=200)
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._unclaimed: list[dict[str, Any]] = []
        self._next_id = 0
        self._write_lock = threading.Lock()
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env={**os.environ, **(env or {})},
                                        start_new_session=True)
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True, name="RawSession stdout"),
                         threading.Thread(target=self._read_stderr, daemon=True, name="RawSession stderr")]
        for t in self._threads:
            t.start()

    # -- the process ----------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            text = line.decode("utf-8", errors="replace").rstrip("\n")
            if not text.strip():
                continue
            message = json_object(text)
            self.wire.record(TO_CLIENT, message, raw=text)
            self._inbox.put(message if message is not None else {"unparsed": text})
        self._inbox.put(None)  # end of stream

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.decode("utf-8", errors="replace").rstrip("\n"))

    # -- writing --------------------------------------------------------------------------------

    def send(self, message: dict[str, Any] | str) -> Frame:
        """Write one frame: a dict as compact JSON, a str exactly as given; a newline ends it."""
        line = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        with self._write_lock:
            frame = self.wire.record(TO_SERVER, json_object(line), raw=line)
            assert self.process.stdin is not None
            try:
                self.process.stdin.write(line.encode("utf-8") + b"\n")
                self.process.stdin.flush()
            except (BrokenPipeError, OSError) as err:
                raise ConnectionError(f"the server is gone ({self.process.poll()=}): {err}") from None
        return frame

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def notify(self, method: str, params: dict[str, Any] | None = None) -> Frame:
        """Send a notification (a message without an id: nothing comes back)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self.send(message)

    def request(self, method: str, params: dict[str, Any] | None = None, *, id: Any = None,
                timeout: float | None = None) -> dict[str, Any]:
        """Send a request and return the server's answer to it (a "result" or an "error")."""
        ident = self.new_id() if id is None else id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_for(lambda m: m.get("id") == ident and "method" not in m, timeout)

    def initialize(self, protocol_version: str = PROTOCOL_VERSION, timeout: float | None = None) -> dict[str, Any]:
        """The handshake by hand: `initialize`, then `notifications/initialized`; returns the result."""
        answer = self.request("initialize", {"protocolVersion": protocol_version, "capabilities": {},
                                             "clientInfo": {"name": CLIENT_NAME + "-by-hand", "version": "0"}},
                              timeout=timeout)
        self.notify("notifications/initialized")
        return answer

    # -- reading --------------------------------------------------------------------------------

    def receive(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message from the server not yet handed out."""
        return self.wait_for(lambda m: True, timeout)

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float | None = None) -> dict[str, Any]:
        """The first message (old or new) for which `predicate` is true; others stay for later."""
        for i, message in enumerate(self._unclaimed):
            if predicate(message):
                return self._unclaimed.pop(i)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching answer from the server within {timeout or self.timeout:g} s")
            try:
                message = self._inbox.get(timeout=left)
            except queue.Empty:
                continue
            if message is None:
                self._inbox.put(None)  # stay at end of stream for later readers
                raise ConnectionError(f"the server closed its output (exit code {self.process.poll()}); "
                                      f"last stderr: {list(self.stderr)[-3:]}")
            if predicate(message):
                return message
            self._unclaimed.append(message)

    def pending(self) -> list[dict[str, Any]]:
        """Messages received but not handed out yet (notifications, late answers), oldest first."""
        while True:
            try:
                message = self._inbox.get_nowait()
            except queue.Empty:
                break
            if message is None:
                self._inbox.put(None)
                break
            self._unclaimed.append(message)
        return list(self._unclaimed)

    # -- closing --------------------------------------------------------------------------------

    def close(self, grace: float = 2.0) -> int | None:
        """Close stdin (the polite way to end a stdio server), then terminate, then kill."""
        if self.process.stdin and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        for stop in (None, self.process.terminate, self.process.kill):
            if stop is not None and self.process.poll() is None:
                stop()
            try:
                self.process.wait(grace)
                break
            except subprocess.TimeoutExpired:
                continue
        for t in self._threads:
            t.join(grace)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe:
                pipe.close()
        return self.process.poll()

    def __enter__(self) -> "RawSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
