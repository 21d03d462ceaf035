"""Run notebooks top to bottom in a fresh kernel and save them with their outputs.

    python scripts/run_notebooks.py notebooks/*.ipynb

This is how the committed outputs are made: restart, run all, save. nbclient saves the widgets'
state in the notebook's metadata; each widget output also gets a static picture of its widget
(kitchen/views/saved_widgets.py), what a learner sees before running the notebook. It prints each
notebook's wall time and the total, and any widget model the saved state lacks.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from kitchen.views.saved_widgets import add_pictures, missing_models


def run(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=1800, kernel_name="python3", coalesce_streams=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - t0
    for line in missing_models(nb):
        print(f"{path.name}: {line}", file=sys.stderr)
    add_pictures(nb)
    nbformat.write(nb, path)
    return seconds


def main(paths: list[str]) -> None:
    total = 0.0
    for p in paths:
        seconds = run(Path(p))
        total += seconds
        print(f"{Path(p).name}: {seconds:.0f} s", flush=True)
    print(f"all {len(paths)} notebooks: {total:.0f} s ({total / 60:.1f} min)")


if __name__ == "__main__":
    main(sys.argv[1:])
