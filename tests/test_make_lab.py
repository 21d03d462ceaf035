"""The README's `make lab` starts a JupyterLab that answers, for any user (root included).

It runs the real Makefile target in its own process group, on 127.0.0.1, a free port and a random
token (passed through LAB_ARGS), waits for /api/status to answer 200, then stops the whole group
and checks that nothing of it is left. The venv is already installed when the tests run, so
`make lab` starts JupyterLab at once.
"""

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil
from kitchen.model.server.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix)  # the venv running the tests (`make test-pythons` runs them in one per Python version)
ANSWER_WITHIN = 60.0  # seconds for JupyterLab to answer
STOP_WITHIN = 20.0  # seconds for the group to end on SIGTERM before SIGKILL


def alive_in_group(pgid: int) -> list[int]:
    """Processes of the group that still run (zombies waiting for their parent don't count)."""
    alive = []
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                alive.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            pass
    return alive


def stop_group(process: subprocess.Popen, pgid: int) -> None:
    """SIGTERM to make and JupyterLab together; SIGKILL whatever is left after STOP_WITHIN."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + STOP_WITHIN
    while time.monotonic() < deadline and (process.poll() is None or alive_in_group(pgid)):
        time.sleep(0.2)
    if alive_in_group(pgid):
        os.killpg(pgid, signal.SIGKILL)
    process.wait(timeout=10)


def test_make_lab_starts_jupyterlab(tmp_path):
    make = shutil.which("make")
    assert make, "`make` is not on PATH, so the README's `make lab` cannot run here: install make"
    # Not the caller's make flags (`make test` runs this test) and not the caller's Jupyter set-up.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    env.update(JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    fresh = subprocess.run([make, "-q", f"{VENV}/.installed", f"VENV={VENV}"], cwd=ROOT, env=env, capture_output=True)
    assert fresh.returncode == 0, f"{VENV} is out of date, so `make lab` would reinstall it first: run `make venv`"

    port, token = free_port(), secrets.token_hex(16)
    lab_args = (f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} --ServerApp.port_retries=0 "
                f"--IdentityProvider.token={token}")
    log = tmp_path / "make-lab.log"
    with log.open("w") as out:
        process = subprocess.Popen([make, "lab", f"VENV={VENV}", f"LAB_ARGS={lab_args}"], cwd=ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    pgid = process.pid  # its own session, so its own process group
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
    status, error = None, "no answer"
    try:
        deadline = time.monotonic() + ANSWER_WITHIN
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with opener.open(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2) as reply:
                    status = reply.status
                    break
            except OSError as err:  # not listening yet, or an HTTP error
                error = str(err)
                time.sleep(0.5)
    finally:
        stop_group(process, pgid)
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
    assert status == 200, (f"`make lab` did not answer on port {port} within {ANSWER_WITHIN:.0f} s "
                           f"(make exit code {process.returncode}, last error: {error}):\n{tail}")
    assert not alive_in_group(pgid), f"processes of `make lab` still run after stopping it: {alive_in_group(pgid)}"
