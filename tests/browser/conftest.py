"""Fixtures for the browser suite: one JupyterLab server and one headless Chromium per session.

The suite needs Debian's Chromium at /usr/bin/chromium and the `playwright` package. Without them
the tests skip, unless KITCHEN_REQUIRE_BROWSER=1 (as in CI), where they fail instead.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from kitchen.settings import current

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = current().chromium  # `make test CHROMIUM=...`
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
RUN_TIMEOUT = 300.0  # seconds for one notebook's run in replay

sys.path.insert(0, str(Path(__file__).parent))


def _missing(reason: str) -> None:
    if current().require_browser:
        pytest.fail(f"{reason} (KITCHEN_REQUIRE_BROWSER=1: the browser suite must run)", pytrace=False)
    pytest.skip(f"{reason}; set KITCHEN_REQUIRE_BROWSER=1 to make this a failure")


@pytest.fixture(scope="session")
def chromium() -> Path:
    """The Chromium the suite drives, once it is known to be here (`make browser` installs it)."""
    if not CHROMIUM.exists():
        _missing(f"browser suite needs Chromium at {CHROMIUM} (`make browser`, or apt-get install chromium)")
    return CHROMIUM


@pytest.fixture(scope="session")
def playwright_api(chromium):
    """Playwright's sync API, once the browser and the package are both known to be here."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("browser suite needs the playwright package (the `dev` extra: make venv-all)")
    with sync_playwright() as api:
        yield api


@pytest.fixture(scope="session")
def lab(playwright_api):
    """JupyterLab serving a temporary copy of notebooks/, with replay kernels; stopped at the end."""
    from lab_server import start_lab

    workdir = Path(tempfile.mkdtemp(prefix="kitchen-browser-"))
    server = start_lab(NOTEBOOKS, workdir)
    try:
        yield server
    finally:
        server.stop()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(server.log, ARTIFACTS / "jupyterlab.log")
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def browser(playwright_api):
    """Headless Debian Chromium with a fresh profile."""
    profile = tempfile.mkdtemp(prefix="kitchen-chromium-")
    context = playwright_api.chromium.launch_persistent_context(
        profile, executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
    try:
        yield context
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """artifacts/browser/, emptied once per session: it holds this session's screenshots only."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


class Runs:
    """Each notebook run once, on demand; its page stays open for the later checks."""

    def __init__(self, context, server):
        self.context, self.server, self.done = context, server, {}

    def get(self, name: str):
        from lab_page import NotebookRun, page_problems, run_notebook, save_screenshot
        from playwright.sync_api import Error as PlaywrightError

        if name in self.done:
            return self.done[name]
        picture, run = ARTIFACTS / f"{Path(name).stem}.png", None
        try:
            run = run_notebook(self.context, self.server, name, RUN_TIMEOUT)
            run.problems = page_problems(run)
            run.screenshot = save_screenshot(run.page, picture)
        except PlaywrightError as err:  # the page itself broke: report it, keep what was learnt
            run = run or NotebookRun(name, self.context.pages[-1])
            run.problems.append(f"the browser could not drive the notebook: {str(err).splitlines()[0]}")
            try:
                run.page.screenshot(path=str(picture))
                run.screenshot = picture
            except PlaywrightError:
                pass
        self.done[name] = run
        return run

    def all(self):
        return [self.get(p.name) for p in sorted(NOTEBOOKS.glob("*.ipynb"))]


_SESSION: list[Runs] = []


@pytest.fixture(scope="session")
def runs(browser, lab, artifacts):
    """The notebooks' runs for this session (see `Runs`)."""
    _SESSION.append(Runs(browser, lab))
    return _SESSION[-1]


def pytest_terminal_summary(terminalreporter):
    """Say where the screenshots went, when this session took any."""
    if not (_SESSION and _SESSION[-1].done):
        return
    terminalreporter.write_line(f"browser suite: screenshots and the JupyterLab log are in {ARTIFACTS}")
    for run in _SESSION[-1].done.values():
        ran = sum(c.count is not None for c in run.cells)
        widgets = sum("application/vnd.jupyter.widget-view+json" in c.mimes for c in run.cells)
        figures = sum(any(m.startswith("image/") for m in c.mimes) for c in run.cells)
        terminalreporter.write_line(f"  {run.name}: {ran}/{len(run.cells)} code cells ran in {run.seconds:.0f} s, "
                                    f"{widgets} widget output(s), {figures} figure(s), "
                                    f"{len(run.problems)} problem(s)")
