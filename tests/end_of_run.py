"""Lines tests keep for the end of the run, printed there in a section of their own.

A conftest takes the three pieces: `pytest_configure, report, pytest_terminal_summary =
reporter("title")`; a test asks for the `report` fixture and calls `report(line)`.
"""

from __future__ import annotations

import pytest


def reporter(title: str):
    """The configure hook, the `report` fixture and the summary hook for one section."""
    key = pytest.StashKey[list]()

    def pytest_configure(config):
        config.stash[key] = []

    @pytest.fixture
    def report(request):
        """Keep a line for the end of the run."""
        return request.config.stash[key].append

    def pytest_terminal_summary(terminalreporter, config):
        lines = config.stash.get(key, [])
        if lines:
            terminalreporter.section(title)
            for line in lines:
                terminalreporter.write_line(line)

    return pytest_configure, report, pytest_terminal_summary
