"""The server phase's report: what ran, and each verdict, printed at the end of the run."""

from __future__ import annotations

import pytest

LINES = pytest.StashKey[list]()


def pytest_configure(config):
    config.stash[LINES] = []


@pytest.fixture
def report(request):
    return request.config.stash[LINES].append


def pytest_terminal_summary(terminalreporter, config):
    lines = config.stash.get(LINES, [])
    if lines:
        terminalreporter.section("chapters on the inference server")
        for line in lines:
            terminalreporter.write_line(line)
