"""The server phase's report: what ran, and each verdict, printed at the end of the run."""

from end_of_run import reporter

pytest_configure, report, pytest_terminal_summary = reporter("chapters on the inference server")
