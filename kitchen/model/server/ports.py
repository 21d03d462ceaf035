"""Servers this project starts on the local machine for a cell or a test: a free port, waiting
until one is ready, and stopping it.

Used by `kitchen.mcp.login.room_server` (chapter 05's server for a room), `kitchen.model.server.llama_python`
(llama.cpp's server) and the tests that start a server of their own.

>>> 1024 < free_port() < 65536
True
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    """True when something accepts connections on 127.0.0.1:`port`."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def wait_for(ready: Callable[[], bool], seconds: float, what: str,
             process: subprocess.Popen | None = None, log: Path | None = None) -> None:
    """Poll `ready()` until it is true. RuntimeError (with the end of `log`) if `process` exits
    first, TimeoutError after `seconds`; `what` names the server in both."""
    deadline = time.monotonic() + seconds
    while not ready():
        if process is not None and process.poll() is not None:
            tail = log.read_text(errors="replace")[-800:] if log and log.is_file() else ""
            raise RuntimeError(f"{what} exited with code {process.returncode} before it was ready: {tail}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} was not ready within {seconds:g} s")
        time.sleep(0.1)


def wait_for_port(port: int, seconds: float = 30.0) -> None:
    """Wait until something listens on 127.0.0.1:`port`."""
    wait_for(lambda: listening(port), seconds, f"the server on port {port}")


def stop(process: subprocess.Popen, seconds: float = 15.0) -> None:
    """Ask `process` and everything it started (its process group: `running` starts each server in
    a session of its own, so `make demo`'s Voilà goes with `make`) to end; kill them after `seconds`."""
    def signal_all(sig: int) -> None:
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    signal_all(signal.SIGTERM)
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        pass
    signal_all(signal.SIGKILL)
    process.wait()


@contextmanager
def running(command: Sequence[str], log: Path, ready: Callable[[], bool], seconds: float, what: str,
            env: dict[str, str] | None = None) -> Iterator[None]:
    """Start `command` (in the environment `env`, else this one) with its output in the file `log`
    (a pipe nobody reads would fill and stall it), wait until `ready()`, and stop it on leaving."""
    with open(log, "w") as sink:
        process = subprocess.Popen(list(command), stdout=sink, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
    try:
        wait_for(ready, seconds, what, process, log)
        yield
    finally:
        stop(process)
