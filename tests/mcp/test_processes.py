"""Stopping a server process (`kitchen.mcp.processes`): tiny Python scripts stand in for the server."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import anyio

from kitchen.mcp.processes import stop_popen, stop_process, stop_steps

STUBBORN = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                  "print('ready', flush=True); time.sleep(60)"]
POLITE = [sys.executable, "-c", "import sys; sys.stdin.read()"]


def test_the_stop_plan_closes_then_terminates_then_kills():
    proc = SimpleNamespace(pid=1, terminate=lambda: None, kill=lambda: None)
    steps = stop_steps(proc, 2.0, 1.0)
    assert [(action, grace) for action, grace in steps] == [(None, 2.0), (proc.terminate, 1.0), (proc.kill, 1.0)]


def test_a_polite_process_exits_when_its_stdin_closes():
    proc = subprocess.Popen(POLITE, stdin=subprocess.PIPE)
    t0 = time.monotonic()
    assert stop_popen(proc) == 0 and time.monotonic() - t0 < 2


def test_a_stubborn_process_is_killed():
    proc = subprocess.Popen(STUBBORN, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"ready\n"  # SIGTERM is ignored from here on
    assert stop_popen(proc, exit_grace=0.2, kill_grace=0.5) == -signal.SIGKILL
    proc.stdout.close()


def test_the_async_stop_follows_the_same_plan():
    async def main() -> tuple[int | None, int | None]:
        polite = await anyio.open_process(POLITE)
        stubborn = await anyio.open_process(STUBBORN)
        assert (await stubborn.stdout.receive()).startswith(b"ready")  # SIGTERM is ignored from here on
        return await stop_process(polite), await stop_process(stubborn)

    assert anyio.run(main) == (0, -signal.SIGKILL)
