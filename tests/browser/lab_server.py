"""A private JupyterLab server for the browser tests.

It serves a throw-away copy of the notebooks on 127.0.0.1 (a free port, a random token), with its
own config, data (notebook trust), settings, workspaces and runtime folders, so nothing from the
developer's own JupyterLab set-up leaks in and nothing the run does is written back into the
repository. Kernels answer from the replay recordings (`KITCHEN_MODEL=replay`), never from a real
model, unless the caller names another source (the classroom walk-through: a local server). As on a learner's machine, no notebook is trusted unless the caller asks for it.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil

from kitchen.model.server.ports import free_port

# JupyterLab user settings written before the server starts: every cell is attached to the page
# (so all outputs can be inspected and photographed), no autosave, no news or update checks.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}


@dataclass
class LabServer:
    """A running JupyterLab: where it is, how to log in, and how to stop it."""

    root: Path
    port: int
    token: str
    process: subprocess.Popen
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Stop the server and every kernel it started (kernels run in their own sessions)."""
        if self.process.poll() is not None:
            return
        try:
            children = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        self.process.terminate()  # the server shuts its kernels down on SIGTERM
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        _, alive = psutil.wait_procs(children, timeout=10)
        for proc in alive:
            proc.kill()
        psutil.wait_procs(alive, timeout=5)


def trust(paths: list[Path], data_dir: Path) -> None:
    """Sign `paths` as `jupyter trust` would, in the trust database under `data_dir`."""
    if not paths:
        return
    import nbformat
    from nbformat.sign import NotebookNotary

    data_dir.mkdir(parents=True, exist_ok=True)
    notary = NotebookNotary(data_dir=str(data_dir))
    for path in paths:
        notary.sign(nbformat.read(path, as_version=4))
    notary.store.close()


def start_lab(notebooks: Path, workdir: Path, timeout: float = 90.0,
              disabled_extensions: tuple[str, ...] = (), trusted: tuple[str, ...] = (),
              model: str = "replay") -> LabServer:
    """Copy `notebooks` into `workdir` and serve the copy; return once the server answers.

    `disabled_extensions` names JupyterLab extensions to switch off in this server's own config
    (as `jupyter labextension disable` would), e.g. the widgets manager, to check that the suite
    notices what a learner would see without it. `trusted` names notebooks of the copy to trust
    (JupyterLab renders their widget outputs as widgets; an untrusted notebook's only as HTML or
    text). `model` is the kernels' KITCHEN_MODEL."""
    root = workdir / "notebooks"
    shutil.copytree(notebooks, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    trust([root / name for name in trusted], workdir / "data")
    if disabled_extensions:
        page_config = workdir / "config" / "labconfig" / "page_config.json"
        page_config.parent.mkdir(parents=True, exist_ok=True)
        page_config.write_text(json.dumps({"disabledExtensions": {name: True for name in disabled_extensions}}))
    settings = workdir / "lab-settings"
    for name, values in SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = dict(
        os.environ,
        KITCHEN_MODEL=model,
        HF_HUB_OFFLINE="1",
        JUPYTER_CONFIG_DIR=str(workdir / "config"),
        JUPYTER_DATA_DIR=str(workdir / "data"),
        JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
    )
    port, token = free_port(), secrets.token_hex(16)
    log = workdir / "jupyterlab.log"
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        "--ServerApp.terminals_enabled=False", "--allow-root",  # CI runs as root
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: the tests drive JupyterLab's commands
    ]
    with log.open("w") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    server = LabServer(root, port, token, process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with code {process.returncode}:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(f"{server.url}/api/status?token={token}", timeout=2) as reply:
                if reply.status == 200:
                    return server
        except OSError:
            time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"JupyterLab did not answer on {server.url} within {timeout:.0f} s:\n{server.log_tail()}")
