"""The notebooks as a learner sees them: JupyterLab in headless Chromium, driven by Playwright.

Each notebook in notebooks/ is opened in a private JupyterLab (a temporary copy of the folder,
kernels on the replay recordings, no model) and run top to bottom. The suite then checks:

- no cell ends in an error (a traceback), and every cell ran;
- every widget rendered: no "Error displaying widget", no "Loading widget..." left, and every
  `kitchen-*` widget is visible on the page;
- every cell that makes a figure shows it as an image;
- chapters 03 and 05 draw their diagrams (Mermaid, from the run just made) as SVG images, each
  also saved as its own screenshot;
- the widgets that teach respond to a learner: the step-through's Next moves one token on and
  shows that token's top-k plot, the harness debugger's Next moves the loop one phase on, the
  tools off/on widget shows text in both panes, the dashboard's Run fills both its panes.

A full-page screenshot of each notebook after its run goes to artifacts/browser/.

What it does not check: whether the model's answers are right or repeat (replay only repeats
recordings; the model tests and nbval's output comparison cover content), pixel-exact layout,
other browsers, or how the notebooks behave on a live model.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lab_page import until

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
# The `kitchen.views.widgets` function behind each widget that teaches: a cell that ran a call to it
# must show its widget, so a widget that fails to appear fails its check instead of skipping it.
MAKERS = {"kitchen-step-through": "step_through", "kitchen-tools-off-on": "tools_off_on",
          "kitchen-debugger": "harness_debugger", "kitchen-dashboard": "dashboard",
          "kitchen-self-check": "self_check"}
# The chapters that draw a diagram of their own run, and the call that draws it.
DIAGRAMS = {"03_the_harness.ipynb": "loop_diagram(", "05_mcp_on_the_wire.ipynb": "session_diagram("}
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "browser"
# What JupyterLab's Mermaid renderer left in an output: the image's data URI, or its error text.
DRAWING = "el => { const img = el.querySelector('img'); return img ? img.src : 'no image: ' + el.innerText; }"
TIMEOUT = 30.0  # seconds for one widget to respond to a click (replay answers at once)

CELL_OF = "el => { const c = el.closest('[data-kitchen-cell]'); return c ? Number(c.dataset.kitchenCell) : null; }"
# A pane's text without its first child (the title), so an empty pane reads as "".
PANE_TEXT = "el => [...el.children].slice(1).map(c => c.innerText).join('\\n').trim()"
TOPK_IMAGE = "el => { const img = el.querySelector('.kitchen-topk img'); return img ? img.src : null; }"


def report(run, problems: list[str]) -> str:
    lines = [f"{run.name}: {len(problems)} problem(s) in the browser"] + [f"  - {p}" for p in problems]
    if run.screenshot:
        lines.append(f"  screenshot: {run.screenshot}")
    if run.console_errors:
        unique = list(dict.fromkeys(run.console_errors))[:5]
        lines += ["  browser console errors (distinct, first five):"] + [f"    {e}" for e in unique]
    return "\n".join(lines)


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_and_renders(runs, name):
    run = runs.get(name)
    if run.problems:
        pytest.fail(report(run, run.problems), pytrace=False)


def check_every(runs, kind: str, check) -> None:
    """Apply `check(page, widget)` to every `.kind` widget in every notebook; collect what fails.

    `check` returns None when the widget behaved, or a sentence saying what went wrong."""
    from playwright.sync_api import Error as PlaywrightError

    call = re.compile(rf"(?<![\w.]){MAKERS[kind]}\(")
    found, failures = [], []
    for run in runs.all():
        shown = set()
        for widget in run.page.locator(f".{kind}").all():
            cell = widget.evaluate(CELL_OF)
            shown.add(cell)
            found.append((run, widget, f"{run.name}, .{kind} in {run.cell_label(cell)}"))
        for cell in run.cells:
            if cell.count is not None and call.search(cell.source) and cell.index not in shown:
                failures.append(f"{run.name}: {cell.label} calls {MAKERS[kind]}() but no .{kind} "
                                f"widget is on the page there")
    if not found and not failures:
        pytest.skip(f"no notebook shows a .{kind} widget yet")
    for run, widget, where in found:
        try:
            problem = check(run.page, widget)
        except PlaywrightError as err:
            problem = f"the browser could not use it: {str(err).splitlines()[0]}"
        if problem:
            failures.append(f"{where}: {problem}")
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


def test_step_through_next_moves_one_token(runs):
    def check(page, widget):
        caption = widget.locator(".kitchen-caption")
        match = re.search(r"step (\d+) of (\d+)", caption.inner_text())
        if not match:
            return f"the caption reads {caption.inner_text()!r}, not 'step i of N'"
        step, total = map(int, match.groups())
        if step == total:
            return f"it already shows the last step ({step} of {total}), so Next cannot be tried"
        image_before = widget.evaluate(TOPK_IMAGE)
        widget.locator(".kitchen-next").click()
        want = f"step {step + 1} of {total}"
        if not until(lambda: want in caption.inner_text(), TIMEOUT, page):
            return f"after Next the caption reads {caption.inner_text()!r}, not {want!r}"
        if not until(lambda: widget.evaluate(TOPK_IMAGE) not in (None, image_before), TIMEOUT, page):
            return f"after Next ({want}) the top-k output (.kitchen-topk) shows no new plot image"
        return None

    check_every(runs, "kitchen-step-through", check)


def test_debugger_next_moves_one_phase(runs):
    def check(page, widget):
        status = widget.locator(".kitchen-debugger-status")
        before = status.inner_text().strip()
        button = widget.locator(".kitchen-next")
        if button.is_disabled():
            return f"Next is disabled before any step (status {before!r})"
        button.click()
        if not until(lambda: status.inner_text().strip() not in ("", before), TIMEOUT, page):
            return f"Next did not move the loop on: the status still reads {before!r}"
        return None

    check_every(runs, "kitchen-debugger", check)


def pane_problems(panes) -> str | None:
    """None when every pane holds text; else which panes are empty or report a replay miss."""
    problems = []
    for i, pane in enumerate(panes):
        name = (pane.get_attribute("class") or "").split()
        name = next((c for c in name if c.startswith("kitchen-pane")), f"pane {i + 1}")
        text = pane.evaluate(PANE_TEXT)
        if not text:
            problems.append(f".{name} is empty")
        elif "No recording" in text:
            problems.append(f".{name} reports a missing replay recording: {' '.join(text.split())[-200:]}")
    return "; ".join(problems) or None


@pytest.mark.parametrize("name", sorted(DIAGRAMS))
def test_the_chapter_draws_its_diagram_as_svg(runs, name):
    import urllib.parse

    run = runs.get(name)
    cells = [c for c in run.cells if DIAGRAMS[name] in c.source and c.count is not None]
    assert cells, f"{name}: no cell that ran draws the chapter's diagram ({DIAGRAMS[name]}...)"
    for cell in cells:
        drawn = run.page.locator(f'[data-kitchen-cell="{cell.index}"] .jp-RenderedMermaid')
        until(lambda: drawn.count() > 0 and drawn.first.evaluate(DRAWING).startswith("data:"), TIMEOUT, run.page)
        assert drawn.count() == 1, f"{name}, {cell.label}: {drawn.count()} Mermaid outputs, not one"
        uri = drawn.first.evaluate(DRAWING)
        assert uri.startswith("data:image/svg+xml"), f"{name}, {cell.label}: not drawn as SVG: {uri[:200]}"
        svg = urllib.parse.unquote(uri.split(",", 1)[-1])
        assert "<svg" in svg and "Syntax error" not in svg, f"{name}, {cell.label}: Mermaid drew an error"
        drawn.first.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        drawn.first.screenshot(path=str(ARTIFACTS / f"diagram-{Path(name).stem}.png"))


def test_a_self_check_answers_a_click(runs):
    def check(page, widget):
        widget.locator("input[type=radio]").first.check()
        feedback = widget.locator(".kitchen-feedback").first
        until(lambda: feedback.inner_text().strip() != "", TIMEOUT, page)
        text = feedback.inner_text().strip()
        return None if text.startswith(("✓", "✗")) else f"a click on the first answer showed {text!r}, not feedback"

    check_every(runs, "kitchen-self-check", check)


def test_tools_off_on_fills_both_panes(runs):
    def check(page, widget):
        return pane_problems([widget.locator(".kitchen-pane-off"), widget.locator(".kitchen-pane-on")])

    check_every(runs, "kitchen-tools-off-on", check)


def test_dashboard_runs_in_both_panes(runs):
    """The dashboard (chapter 06) is expected to hold `.kitchen-run`, optionally `.kitchen-reset`,
    and two panes whose classes start with `kitchen-pane`. Reset (if there) empties the panes, Run
    answers the question in the box in both, and Run is disabled while it works."""

    def check(page, widget):
        panes = widget.locator('[class*="kitchen-pane"]').all()
        if len(panes) < 2:
            return f"it has {len(panes)} pane(s) with a kitchen-pane* class, not two"
        reset = widget.locator(".kitchen-reset")
        if reset.count():
            reset.first.click()
            until(lambda: not any(p.evaluate(PANE_TEXT) for p in panes), TIMEOUT, page)
        run_button = widget.locator(".kitchen-run").first
        run_button.click()
        page.wait_for_timeout(500)
        until(lambda: run_button.is_enabled() and all(p.evaluate(PANE_TEXT) for p in panes), TIMEOUT, page)
        return pane_problems(panes)

    check_every(runs, "kitchen-dashboard", check)


def test_a_missing_widgets_extension_is_reported(browser, tmp_path):
    """The suite's own check: with the widgets extension switched off (what a learner gets when
    `jupyterlab_widgets` is missing), chapter 01's run must fail the checks above, and the report
    must name the notebook and each cell whose widget did not appear."""
    from lab_page import WIDGET_MIME, page_problems, run_notebook
    from lab_server import start_lab

    name = NAMES[0]
    server = start_lab(NOTEBOOKS, tmp_path, disabled_extensions=("@jupyter-widgets/jupyterlab-manager",))
    try:
        run = run_notebook(browser, server, name, timeout=120)
        problems = page_problems(run)
        run.page.close()
    finally:
        server.stop()
    widget_cells = [c.label for c in run.cells if WIDGET_MIME in c.mimes]
    assert widget_cells, f"{name} showed no widget at all, so the check could not be tried"
    text = report(run, problems)
    assert text.startswith(f"{name}: "), text
    missing = [label for label in widget_cells if not any(label in p and "widget" in p for p in problems)]
    assert not missing, f"these widget cells were not reported without the extension: {missing}\n{text}"
    print(text)  # what the failure would have said (shown with -s)
