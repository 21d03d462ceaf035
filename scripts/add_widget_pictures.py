"""Give each widget output in the notebooks a static picture of the widget (`text/html`), drawn
from the notebook's saved widget state, so a chapter opened before any run shows its widgets
instead of `VBox(children=(...`; kitchen/views/saved_widgets.py says why JupyterLab needs it.

    python scripts/add_widget_pictures.py notebooks/*.ipynb

scripts/run_notebooks.py does this on every run; this script redraws notebooks without running
them. It changes nothing but those `text/html` entries, and leaves a notebook alone (and exits
with 1) when its saved state lacks a model one of its widgets needs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from kitchen.views.saved_widgets import add_pictures, missing_models


def redraw(path: Path) -> list[str]:
    """Add or refresh the pictures in `path`; return the models its saved state lacks (then the
    file is not written)."""
    nb = nbformat.read(path, as_version=4)
    missing = missing_models(nb)
    if missing:
        return missing
    changed = add_pictures(nb)
    if changed:
        nbformat.write(nb, path)
    print(f"{path.name}: {changed} widget picture(s) drawn")
    return []


def main(paths: list[str]) -> int:
    failed = False
    for p in paths:
        for line in redraw(Path(p)):
            failed = True
            print(f"{Path(p).name}: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
