"""Stopping a stdio MCP server process, the same way from plain and from async code.

The MCP lifecycle for stdio ends a server politely: close its stdin, give it a moment to exit, then
terminate it, then kill it; every wait is bounded. `stop_steps` is that plan, written once;
`stop_popen` follows it for a `subprocess.Popen` (`kitchen.mcp.raw_session`), `stop_process` for
an anyio process (`kitchen.mcp.transports`).

What this module does not do: start processes, or read their pipes.
"""

from __future__ import annotations

import logging
import subprocess
from contextlib import suppress
from typing import Callable, Protocol

import anyio
import anyio.abc

logger = logging.getLogger(__name__)

EXIT_GRACE = 2.0  # seconds a server gets to exit on its own once its stdin is closed
KILL_GRACE = 1.0  # seconds between terminate and kill, and after kill


class Stoppable(Protocol):
    pid: int

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


def stop_steps(process: Stoppable, exit_grace: float = EXIT_GRACE,
               kill_grace: float = KILL_GRACE) -> list[tuple[Callable[[], None] | None, float]]:
    """What to do, and how long to wait after it, once stdin is closed: (action or None, seconds)."""
    return [(None, exit_grace), (process.terminate, kill_grace), (process.kill, kill_grace)]


def _signal(action: Callable[[], None] | None) -> None:
    if action is not None:
        with suppress(ProcessLookupError):
            action()


def stop_popen(process: subprocess.Popen, exit_grace: float = EXIT_GRACE,
               kill_grace: float = KILL_GRACE) -> int | None:
    """Close stdin, wait, terminate, wait, kill, wait: the exit code. The output pipes stay open for
    their readers to finish."""
    if process.stdin and not process.stdin.closed:
        with suppress(OSError):
            process.stdin.close()
    for action, grace in stop_steps(process, exit_grace, kill_grace):
        if process.poll() is None:
            _signal(action)
        try:
            process.wait(grace)
            break
        except subprocess.TimeoutExpired:
            continue
    else:
        logger.warning("MCP server process %s survived a kill", process.pid)
    return process.poll()


async def _exited(process: anyio.abc.Process, seconds: float) -> bool:
    # Poll the exit code: on Python 3.11 `wait()` also waits for the pipes to close.
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.02)
    return process.returncode is not None


async def stop_process(process: anyio.abc.Process) -> int | None:
    """The same plan for an anyio process; then its pipes are closed. The exit code."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    for action, grace in stop_steps(process):
        if action is not None and process.returncode is None:
            _signal(action)
        if await _exited(process, grace):
            break
    else:
        logger.warning("MCP server process %s survived a kill", process.pid)
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await pipe.aclose()
    with anyio.move_on_after(KILL_GRACE), suppress(Exception):
        await process.aclose()
    return process.returncode
