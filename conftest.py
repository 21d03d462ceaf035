"""pytest set-up shared by the unit tests and the notebook tests (nbval)."""

from collections import defaultdict

_notebook_seconds: dict[str, float] = defaultdict(float)


def pytest_collectstart(collector):
    # Library warnings on stderr differ from run to run; nbval compares only stdout and results.
    if collector.fspath and str(collector.fspath).endswith(".ipynb"):
        collector.skip_compare += ("stderr",)


def pytest_runtest_logreport(report):
    """Add up the time of every notebook cell, per notebook (set-up, call and tear-down)."""
    path = report.nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        _notebook_seconds[path] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not _notebook_seconds:
        return
    write = terminalreporter.write_line
    terminalreporter.section("notebook series wall time")
    for path, seconds in sorted(_notebook_seconds.items()):
        write(f"{path}: {seconds:.0f} s")
    total = sum(_notebook_seconds.values())
    write(f"all {len(_notebook_seconds)} notebooks, top to bottom: {total:.0f} s ({total / 60:.1f} min)")


def pytest_collection_modifyitems(items):
    """Run the browser suite last. Its Playwright session keeps an asyncio loop running in this
    thread until the session ends, and in-process asyncio tests (the MCP server's) cannot start
    their own loop after it. `sort` is stable: every other test keeps its order."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
