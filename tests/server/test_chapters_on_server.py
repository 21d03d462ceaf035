"""Chapters 01 and 03 top to bottom against a real inference server: llama.cpp's own `llama-server`
(built from the pinned source by `make llama-server`), started here on 127.0.0.1 in router mode with
both offline packs' GGUF files and four slots, and stopped after. (llama-cpp-python's server runs
the same plumbing checks in tests/model/server/test_client_live.py.)

Each chapter runs with KITCHEN_MODEL=server:URL in a fresh kernel, so every cell that loads a live
model gets the server (a cell that asks for a replay keeps it). A cell that raises fails the test.
Every verdict the chapter shows is collected (`KITCHEN_VERDICTS`): a claim measured on the server
(its settings list the served GGUF file) must hold; any other is reported at the end, hold or not.
The executed copies are saved in artifacts/server/ for a look at what the server wrote.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from kitchen.model.server.llama_server import llama_cpp_server
from kitchen.claims.core import shown_verdicts
from kitchen.settings import VERDICTS_VAR

pytestmark = pytest.mark.server
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "server"
CHAPTERS = ["01_arithmetic_one_token_at_a_time.ipynb", "03_the_harness.ipynb"]


@pytest.fixture(scope="module")
def server_url():
    with llama_cpp_server("0.5b", "1.5b", parallel=4) as url:
        yield url


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_chapter_runs_on_the_server(name, server_url, tmp_path, report, monkeypatch):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    verdicts = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv("KITCHEN_MODEL", f"server:{server_url}")  # the kernel inherits this environment
    monkeypatch.setenv(VERDICTS_VAR, str(verdicts))
    t0 = time.perf_counter()
    try:
        NotebookClient(nb, timeout=900, kernel_name="python3",
                       resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, ARTIFACTS / name)
    report(f"{name}: ran top to bottom against {server_url} in {time.perf_counter() - t0:.0f} s")
    printed = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "source: inference server" in printed, "no cell announced the server"
    shown = shown_verdicts(verdicts)
    assert shown, f"{name}: the chapter showed no verdict"
    failed = [v["line"] for v in shown if v["measured_here"] and not v["holds"]]
    for v in shown:
        report(("asserted " if v["measured_here"] else "reported ") + v["line"])
    assert not failed, f"{name}: claims measured on this server no longer hold:\n" + "\n".join(failed)
