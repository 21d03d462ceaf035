"""A teacher's walk-through, in the browser: `make classroom` starts llama.cpp's llama-server on the
offline packs (its own command, from the Makefile, with a free port and two slots), JupyterLab opens
chapter 01 with `KITCHEN_MODEL=server:http://127.0.0.1:PORT` as a learner's would, and the chapter's
cells run from the top until the model has answered the question: the announcement must name the
server, and the answer cell must show the reply and its token count. A screenshot of the page goes
to artifacts/browser/classroom-01.png.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from kitchen.model.packs import PACKS
from kitchen.model.server.llama_server import ready
from kitchen.model.server.ports import free_port, running
from lab_page import open_notebook, read_cells, save_screenshot, until
from lab_server import start_lab

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"
CHAPTER = "01_arithmetic_one_token_at_a_time.ipynb"
ROOM = [Path(PACKS[t].gguf_name).stem for t in ("0.5b", "1.5b")]  # what `make classroom` serves
START_SECONDS = 300.0  # make classroom: make's checks, then both packs loaded by the router
ANSWER_SECONDS = 300.0


def test_a_teacher_starts_the_room_and_a_learners_notebook_answers_through_it(browser):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    workdir = Path(tempfile.mkdtemp(prefix="kitchen-classroom-"))
    command = ["make", "--no-print-directory", "-C", str(ROOT), "classroom", f"PORT={port}", "LEARNERS=2"]
    lab = None
    try:
        with running(command, workdir / "classroom.log", lambda: ready(url, ROOM), START_SECONDS, "make classroom",
                     env={**os.environ, "HF_HUB_OFFLINE": "1"}):
            lab = start_lab(ROOT / "notebooks", workdir, model=f"server:{url}")
            run = open_notebook(browser, lab, CHAPTER)
            page = run.page
            answer = next(c for c in run.cells if c.source.startswith("stream = model.stream(messages"))
            page.evaluate(f"""async () => {{
                const panel = window.jupyterapp.shell.currentWidget;
                panel.content.activeCellIndex = {answer.index};
                await window.jupyterapp.commands.execute('notebook:run-all-above');
                await window.jupyterapp.commands.execute('notebook:run-cell');
            }}""")

            def answered() -> bool:
                status, cells = read_cells(page)
                return status == "idle" and (any(c.errors for c in cells) or any(
                    c.index == answer.index and c.count is not None for c in cells))

            assert until(answered, ANSWER_SECONDS, page, interval_ms=500), "the answer cell did not run"
            save_screenshot(page, ARTIFACTS / "classroom-01.png")
            _, cells = read_cells(page)
            errors = [f"{c.label}: {e['ename']}: {e['evalue']}" for c in cells for e in c.errors]
            assert not errors, errors
            shown = {c.index: page.locator(f'[data-kitchen-cell="{c.index}"] .jp-OutputArea-output').all_inner_texts()
                     for c in cells}
            announcement = next(" ".join(t) for i, t in shown.items() if "Running " in " ".join(t))
            assert "source: inference server" in announcement and url in announcement, announcement
            reply = " ".join(shown[answer.index])
            assert "tokens]" in reply and len(reply.split()) > 3, reply
    finally:
        if lab:
            lab.stop()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        if (workdir / "classroom.log").exists():
            shutil.copy(workdir / "classroom.log", ARTIFACTS / "classroom.log")
        shutil.rmtree(workdir, ignore_errors=True)
