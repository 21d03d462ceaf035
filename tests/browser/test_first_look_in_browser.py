"""The chapters as a learner first sees them: opened in JupyterLab, no cell run yet.

A notebook fresh from the repository is not trusted on the learner's machine, so JupyterLab does
not draw its widget outputs as widgets: it shows each one's static picture (`text/html`, drawn
from the saved widget state by kitchen/views/saved_widgets.py) or, without one, its text,
`VBox(children=(HBox(...`. A trusted notebook restores the widgets themselves from that state.

The checks, on every chapter opened and not run: each output that holds a widget in the .ipynb
shows the widget (`.jupyter-widgets`) or its picture (`.kitchen-widget-picture`), counted cell by
cell against the .ipynb, and no output shows the text fallback or a widget error. The suite's own
checks: a chapter without its pictures, or a trusted one whose saved widget state is gone, must
fail them, naming each widget cell; a trusted chapter must restore every widget from its state.
A screenshot of each chapter as first opened goes to artifacts/browser/first-look-*.png.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kitchen.views.saved_widgets import PICTURE_CLASS, view_outputs
from lab_page import open_notebook, save_screenshot, until

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
CHAPTERS = sorted(p.name for p in NOTEBOOKS.glob("0*.ipynb"))
# What an output shows when a widget is not drawn: its text/plain, or the widget manager's errors.
FALLBACKS = ("VBox(children=", "HBox(children=", "Error displaying widget", "model not found")
RENDER_TIMEOUT = 20.0  # seconds for widget views to leave "Loading widget..."
# How one output is drawn: its text, and whether it holds the picture or a widget.
SHOWN = f"""el => ({{text: el.innerText,
    picture: !!el.querySelector('.{PICTURE_CLASS}'),
    widget: el.matches('.jupyter-widgets') || !!el.querySelector('.jupyter-widgets')}})"""


@dataclass
class FirstLook:
    """One notebook as opened: how each widget cell's outputs were drawn, and what went wrong."""

    name: str
    shown: dict[int, list[str]] = field(default_factory=dict)  # widget cell -> how each output is drawn
    problems: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    def report(self) -> str:
        lines = [f"{self.name}, opened without running: {len(self.problems)} problem(s)"]
        lines += [f"  - {p}" for p in self.problems]
        if self.screenshot:
            lines.append(f"  screenshot: {self.screenshot}")
        return "\n".join(lines)


def widget_outputs(path: Path) -> Counter:
    """Cell index -> how many of its outputs hold a widget view, from the .ipynb itself."""
    return Counter(index for index, _ in view_outputs(json.loads(path.read_text(encoding="utf-8"))))


def drawn_as(output: dict) -> str:
    """"widget", "picture", or the text an output shows instead (a fallback or an error)."""
    text = " ".join(output["text"].split())
    if any(f in text for f in FALLBACKS):
        return text
    return "widget" if output["widget"] else "picture" if output["picture"] else text


def look(context, server, name: str, expected: Counter, screenshot: Path) -> FirstLook:
    """Open `name` without running it, read how every output is drawn, photograph the page, then
    close it and shut its kernel down (a later run of the same notebook starts afresh)."""
    run = open_notebook(context, server, name)
    page, seen = run.page, FirstLook(name)
    try:
        until(lambda: page.locator("text=Loading widget...").count() == 0, RENDER_TIMEOUT, page)
        for cell in run.cells:
            outputs = page.locator(f'[data-kitchen-cell="{cell.index}"] .jp-OutputArea-output')
            drawn = [drawn_as(o.evaluate(SHOWN)) for o in outputs.all()]
            seen.problems += cell_problems(cell.label, drawn, expected.get(cell.index, 0))
            if expected.get(cell.index):
                seen.shown[cell.index] = drawn
        seen.screenshot = save_screenshot(page, screenshot)
    finally:
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.close()
    return seen


def cell_problems(label: str, drawn: list[str], widgets: int) -> list[str]:
    """What is wrong with one cell's outputs, which should include `widgets` drawn widgets."""
    fallbacks = [text for text in drawn if any(f in text for f in FALLBACKS)]
    shown = sum(d in ("widget", "picture") for d in drawn)
    if shown < widgets:
        instead = fallbacks or [d for d in drawn if d not in ("widget", "picture")]
        return [f"{label}: {shown} of its {widgets} widget output(s) drawn as a widget or a picture; "
                f"instead it shows {', '.join(repr(t[:100]) for t in instead) or 'nothing'}"]
    return [f"{label}: an output shows {text[:100]!r}" for text in fallbacks]


@pytest.mark.parametrize("name", CHAPTERS)
def test_first_look_shows_every_widget(browser, lab, artifacts, name):
    expected = widget_outputs(NOTEBOOKS / name)
    if not expected:
        pytest.skip(f"{name} holds no widget output")
    seen = look(browser, lab, name, expected, artifacts / f"first-look-{Path(name).stem}.png")
    if seen.problems:
        pytest.fail(seen.report(), pytrace=False)


BROKEN = {"no-pictures.ipynb": "widget outputs without their pictures, as nbclient saves them",
          "no-state.ipynb": "trusted, its saved widget state (metadata.widgets) removed"}


def broken_copy(source: Path, folder: Path, name: str) -> None:
    """A copy of `source` damaged as BROKEN[name] says (or intact, under any other name)."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    if name == "no-pictures.ipynb":
        for _, output in view_outputs(nb):
            output["data"].pop("text/html", None)
    elif name == "no-state.ipynb":
        nb["metadata"].pop("widgets", None)
    (folder / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def damaged_lab(playwright_api, tmp_path_factory):
    """JupyterLab serving chapter 01 three ways: the two damaged copies in BROKEN, and an intact
    copy, trusted, as `intact.ipynb`."""
    from lab_server import start_lab

    work = tmp_path_factory.mktemp("first-look")
    folder = work / "source"
    folder.mkdir()
    for name in (*BROKEN, "intact.ipynb"):
        broken_copy(NOTEBOOKS / CHAPTERS[0], folder, name)
    server = start_lab(folder, work, trusted=("no-state.ipynb", "intact.ipynb"))
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_first_look_reports_a_widget_not_drawn(browser, damaged_lab, artifacts, name):
    """The check above must fail on a damaged chapter, naming the notebook and every widget cell."""
    expected = widget_outputs(NOTEBOOKS / CHAPTERS[0])
    seen = look(browser, damaged_lab, name, expected, artifacts / f"first-look-broken-{Path(name).stem}.png")
    report = seen.report()
    assert report.startswith(f"{name}, "), report
    missed = [cell for cell in expected if not any(f"cell #{cell + 1} (" in p for p in seen.problems)]
    assert not missed, f"{BROKEN[name]}: cells {[c + 1 for c in missed]} not reported\n{report}"
    print(report)  # what the failure would have said (shown with -s)


def test_first_look_restores_a_trusted_chapter_from_its_saved_state(browser, damaged_lab, artifacts):
    """Trusted, a chapter's widgets come back live from metadata.widgets, every one of them."""
    expected = widget_outputs(NOTEBOOKS / CHAPTERS[0])
    seen = look(browser, damaged_lab, "intact.ipynb", expected, artifacts / "first-look-trusted.png")
    assert not seen.problems, seen.report()
    restored = {cell: drawn.count("widget") for cell, drawn in seen.shown.items()}
    assert restored == dict(expected), f"widgets restored per cell: {restored}, in the .ipynb: {dict(expected)}"
