"""Drive one notebook in JupyterLab through Playwright and read back what the page shows.

`open_notebook` opens a notebook in its own JupyterLab workspace and waits for its kernel, running
nothing (what a learner sees first); `run_notebook` then clears the saved outputs, runs every cell
on the fresh kernel and waits for the run to end. `page_problems` then lists what a
learner would see go wrong: tracebacks, widgets that did not render, figures without an image,
`kitchen-*` widgets that are not visible. Cells are named by their position in the notebook
(`cell #7`, counting markdown cells too) and the first line of their code.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable
from urllib.parse import quote

if TYPE_CHECKING:  # playwright is imported only once the suite knows it can run
    from playwright.sync_api import BrowserContext, Page

    from lab_server import LabServer

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
IMAGE_MIMES = ("image/png", "image/jpeg", "image/svg+xml")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
VIEWPORT = {"width": 1280, "height": 900}
MAX_SCREENSHOT_HEIGHT = 16000  # px: Chromium's limit for one capture is about 16k

# The open notebook's code cells as JupyterLab's model holds them (no image data: just mime types).
READ_CELLS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = [];
  const model = panel.content.model;
  for (let i = 0; i < model.cells.length; i++) {
    const cell = model.cells.get(i);
    if (cell.type !== 'code') continue;
    const mimes = [], errors = [];
    for (let j = 0; j < cell.outputs.length; j++) {
      const out = cell.outputs.get(j);
      if (out.type === 'error') {
        const e = out.toJSON();
        errors.push({ename: e.ename, evalue: e.evalue, traceback: (e.traceback || []).join('\\n')});
      }
      mimes.push(...Object.keys(out.data || {}));
    }
    cells.push({index: i, count: cell.executionCount, source: cell.sharedModel.getSource(), mimes, errors});
  }
  return {status: kernel ? kernel.status : 'no kernel', cells};
}"""

# The outermost elements carrying a `kitchen-*` class, with the cell they sit in.
KITCHEN_WIDGETS = """() => Array.from(document.querySelectorAll('[class*="kitchen-"]'))
  .filter(el => [...el.classList].some(c => c.startsWith('kitchen-')))
  .filter(el => !el.parentElement.closest('[class*="kitchen-"]'))
  .map(el => {
    const box = el.getBoundingClientRect();
    const cell = el.closest('[data-kitchen-cell]');
    return {kind: [...el.classList].find(c => c.startsWith('kitchen-')),
            cell: cell ? Number(cell.dataset.kitchenCell) : null,
            visible: box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden'};
  })"""


@dataclass
class Cell:
    index: int
    count: int | None
    source: str
    mimes: list[str]
    errors: list[dict]

    @property
    def label(self) -> str:
        """`cell #7 (step_through(reply))`: position in the notebook and its last line of code."""
        lines = [ln.strip() for ln in self.source.splitlines()
                 if ln.strip() and not ln.strip().startswith("#")]
        code = lines[-1] if lines else ""
        return f"cell #{self.index + 1} ({code[:60]})"


@dataclass
class NotebookRun:
    """One notebook after its run: the page stays open for the interaction checks."""

    name: str
    page: Page
    cells: list[Cell] = field(default_factory=list)
    status: str = ""
    seconds: float = 0.0
    run_problems: list[str] = field(default_factory=list)  # from the run itself (timeouts)
    problems: list[str] = field(default_factory=list)  # everything `page_problems` found
    console_errors: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    def cell_label(self, index: int | None) -> str:
        for cell in self.cells:
            if cell.index == index:
                return cell.label
        return "outside any cell" if index is None else f"cell #{index + 1}"


def read_cells(page: Page) -> tuple[str, list[Cell]]:
    state = page.evaluate(READ_CELLS)
    return state["status"], [Cell(**c) for c in state["cells"]]


def until(check: Callable[[], bool], timeout: float, page: Page, interval_ms: int = 250) -> bool:
    """Poll `check` until it is true (True) or `timeout` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(interval_ms)


def open_notebook(context: BrowserContext, server: LabServer, name: str) -> NotebookRun:
    """Open `name` in its own workspace, as a learner would, without running anything; return once
    its kernel is idle, each cell marked with its position (`data-kitchen-cell`)."""
    page = context.new_page()
    page.set_viewport_size(VIEWPORT)
    run = NotebookRun(name, page)
    page.on("console", lambda m: m.type == "error" and run.console_errors.append(m.text[:300]))
    workspace = re.sub(r"[^a-z0-9]+", "-", name.lower())
    page.goto(f"{server.url}/lab/workspaces/{workspace}/tree/{quote(name)}?token={server.token}")
    page.wait_for_function(
        """name => { const app = window.jupyterapp; const panel = app && app.shell.currentWidget;
                     return !!(panel && panel.context && panel.context.path === name && panel.sessionContext); }""",
        arg=name, timeout=90_000)
    page.evaluate("""async () => {
        const panel = window.jupyterapp.shell.currentWidget;
        await panel.context.ready;
        await panel.sessionContext.ready;
        panel.content.widgets.forEach((cell, i) => cell.node.setAttribute('data-kitchen-cell', String(i)));
    }""")
    page.wait_for_function("""() => { const s = window.jupyterapp.shell.currentWidget.sessionContext.session;
                                      return !!(s && s.kernel && s.kernel.status === 'idle'); }""",
                           timeout=90_000)
    run.status, run.cells = read_cells(page)
    return run


def run_notebook(context: BrowserContext, server: LabServer, name: str, timeout: float) -> NotebookRun:
    """Open `name`, clear its saved outputs, run all cells and wait until the kernel is idle with
    every code cell executed, or an error stopped the run, or `timeout` seconds passed."""
    start = time.monotonic()
    run = open_notebook(context, server, name)
    page = run.page
    page.evaluate("""async () => {
        await window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs');
        window.jupyterapp.commands.execute('notebook:run-all-cells');
    }""")

    def finished() -> bool:
        run.status, run.cells = read_cells(page)
        if run.status != "idle":
            return False
        stopped = any(c.errors for c in run.cells)
        return stopped or all(c.count is not None for c in run.cells)

    page.wait_for_timeout(1000)  # let the first execute request reach the kernel
    if not until(finished, timeout, page, interval_ms=500):
        waiting = next((c.label for c in run.cells if c.count is None), "none")
        run.run_problems.append(f"the run did not finish within {timeout:.0f} s (kernel {run.status}; "
                                f"first cell without a result: {waiting})")
    # Widget views render after their output arrives: give them a moment to replace "Loading widget...".
    until(lambda: page.locator("text=Loading widget...").count() == 0, 20, page)
    run.seconds = time.monotonic() - start
    return run


def page_problems(run: NotebookRun) -> list[str]:
    """Everything on the page after the run that a learner should not see."""
    problems = list(run.run_problems)
    page = run.page
    for cell in run.cells:
        for e in cell.errors:
            where = re.search(r"Cell In\[\d+\], (line \d+)", ANSI.sub("", e["traceback"]))
            at = f" at {where.group(1)}" if where else ""
            problems.append(f"{cell.label} raised {e['ename']}{at}: {e['evalue']}")
    if any(c.errors for c in run.cells):
        skipped = [c.label for c in run.cells if c.count is None and not c.errors]
        if skipped:
            problems.append(f"{len(skipped)} cell(s) did not run after the error, from {skipped[0]}")
    for cell in run.cells:
        outputs = page.locator(f'[data-kitchen-cell="{cell.index}"] .jp-OutputArea-output')
        text = " ".join(outputs.all_inner_texts())
        if WIDGET_MIME in cell.mimes:
            views = outputs.locator('[class*="widget-"]')
            if "Error displaying widget" in text:
                problems.append(f"{cell.label}: the widget shows 'Error displaying widget'")
            elif "Loading widget" in text:
                problems.append(f"{cell.label}: the widget is still 'Loading widget...' after the run")
            elif not any(v.is_visible() for v in views.all()):
                shown = " ".join(text.split())[:100] or "nothing"
                problems.append(f"{cell.label}: the widget did not render; the output shows: {shown}")
        if any(m in cell.mimes for m in IMAGE_MIMES) and not outputs.locator("img, svg").count():
            problems.append(f"{cell.label}: produced a figure but no image is shown")
        if re.search(r"<Figure size \d+x\d+ with \d+ Axes>", text):
            problems.append(f"{cell.label}: a figure is shown as text, not as an image")
    for widget in page.evaluate(KITCHEN_WIDGETS):
        where = run.cell_label(widget["cell"])
        if not widget["visible"]:
            problems.append(f"widget .{widget['kind']} in {where} is not visible")
    for i, text in enumerate(page.locator(".widget-output").all_inner_texts()):
        if "Traceback" in text:
            problems.append(f"an Output widget (#{i + 1} on the page) shows a traceback: {text.strip()[-300:]}")
    return problems


def save_screenshot(page: Page, path: Path) -> Path:
    """The whole notebook in one picture: stretch the window to the notebook's height, then capture."""
    scroller = """() => { const panel = window.jupyterapp.shell.currentWidget;
                          return panel.content.node.querySelector('.jp-WindowedPanel-outer') || panel.content.node; }"""
    page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
    page.wait_for_timeout(300)
    height = page.evaluate(f"() => {{ const s = ({scroller})(); "
                           f"return window.innerHeight - s.clientHeight + s.scrollHeight + 40; }}")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        page.set_viewport_size({"width": VIEWPORT["width"], "height": min(max(height, VIEWPORT["height"]),
                                                                          MAX_SCREENSHOT_HEIGHT)})
        page.wait_for_timeout(800)
        page.evaluate(f"() => {{ ({scroller})().scrollTop = 0; }}")  # run-all leaves it at the bottom
        page.wait_for_timeout(300)
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(VIEWPORT)
    return path

