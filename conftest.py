"""pytest set-up shared by the unit tests and the notebook tests (nbval)."""


def pytest_collectstart(collector):
    # Library warnings on stderr differ from run to run; nbval compares only stdout and results.
    if collector.fspath and str(collector.fspath).endswith(".ipynb"):
        collector.skip_compare += ("stderr",)
