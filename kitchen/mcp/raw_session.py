"""Chapter 05's server spoken to by hand: `RawSession` writes JSON lines and reads the answers.

`RawSession` starts the server (`python -m kitchen.mcp`) as a subprocess and talks to it with
frames you write yourself, one JSON line at a time, reading its answers with a timeout. Handy to
compare hand-written frames with what the SDK client sends, and to see the errors (-32601, -32602)
that the SDK client never provokes. Every frame, both ways, goes to a `WireLog`.

What this module does not do: check what it sends (malformed frames are the point), or decide
what an answer means for a model (that is `kitchen.mcp.client`'s job).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections import deque
from typing import Any, Callable, Sequence

from kitchen.mcp.conventions import CLIENT_NAME, PROTOCOL_VERSION, check_sdk, server_command
from kitchen.mcp.frames import TO_CLIENT, TO_SERVER, Frame, WireLog, json_object
from kitchen.mcp.processes import stop_popen


class RawSession:
    """Chapter 05's server, spoken to by hand: write JSON lines, read the answers.

    >>> with RawSession() as raw:
    ...     hello = raw.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
    ...                                        "clientInfo": {"name": "me", "version": "0"}})
    ...     sent = raw.notify("notifications/initialized")
    ...     raw.request("tools/list")["result"]["tools"][0]["name"]
    'calculator'

    Nothing is checked on the way out: `send` writes whatever it is given (a dict as one JSON
    line, a str verbatim), so malformed frames can be tried too. Every frame, both ways, goes to
    `wire`. Reading blocks at most `timeout` seconds and then raises `TimeoutError`; the handshake
    waits up to `connect_timeout`, since the server is still starting (importing the MCP SDK
    took 5.5 s on an idle 2-core machine here, longer while tests run beside it).
    """

    def __init__(self, command: Sequence[str] | None = None, *, faults: bool = False,
                 wire: WireLog | None = None, timeout: float = 10.0, connect_timeout: float = 30.0,
                 env: dict[str, str] | None = None):
        check_sdk()
        self.command = list(command or server_command(faults=faults))
        self.wire = wire if wire is not None else WireLog()
        self.timeout, self.connect_timeout = timeout, connect_timeout
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
        """The handshake by hand: `initialize`, then `notifications/initialized`; returns the result.
        Waits up to `connect_timeout` unless `timeout` is given."""
        answer = self.request("initialize", {"protocolVersion": protocol_version, "capabilities": {},
                                             "clientInfo": {"name": CLIENT_NAME + "-by-hand", "version": "0"}},
                              timeout=self.connect_timeout if timeout is None else timeout)
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

    # -- closing --------------------------------------------------------------------------------

    def close(self, grace: float = 2.0) -> int | None:
        """Close stdin (the polite way to end a stdio server), then terminate, then kill; `grace`
        seconds for each step and for each reader thread."""
        code = stop_popen(self.process, exit_grace=grace, kill_grace=grace)
        for t in self._threads:
            t.join(grace)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe:
                pipe.close()
        return code

    def __enter__(self) -> "RawSession":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
