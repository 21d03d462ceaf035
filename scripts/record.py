"""Record real model runs for replay: run notebooks with the live offline packs and save every call.

    python scripts/record.py 01_arithmetic        # one notebook
    python scripts/record.py --all                # every notebook in notebooks/
    python scripts/record.py --all --outputs DIR  # and keep each executed notebook in DIR

Each notebook is executed top to bottom (its outputs are not saved) with KITCHEN_RECORD set to
its name. Every generate and log-probability call of a live model is then appended to
data/recordings/<tier>/<name>.json, labelled with the exact model, source, dtype, versions and
date (see kitchen/model/replay/runs.py). Requests the notebook sends to the replay source are served by the
live pack instead, when that pack is installed, so they are recorded too. A tier whose pack is
not installed keeps its previous recordings.

Never edit a recording by hand: change the notebook and record again.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kitchen.model import packs  # noqa: E402
from kitchen.model.selection import TIERS  # noqa: E402
from kitchen.model.replay.runs import RECORDINGS  # noqa: E402
from kitchen.settings import RECORD_VAR  # noqa: E402


def record(name: str, outputs: Path | None = None) -> None:
    path = ROOT / "notebooks" / f"{name}.ipynb"
    for tier in TIERS.values():
        if packs.is_installed(tier.pack):
            (RECORDINGS / tier.name / f"{name}.json").unlink(missing_ok=True)
    os.environ[RECORD_VAR] = name
    os.environ.setdefault("KITCHEN_MODEL", "pack")  # the source; each chapter keeps its tier
    os.environ["HF_HUB_OFFLINE"] = "1"
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=3600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    if outputs:  # what the recording run showed, to read (the committed outputs come from run_notebooks.py)
        outputs.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, outputs / f"{name}.ipynb")
    made = sorted(RECORDINGS.glob(f"*/{name}.json"))
    print(f"{name}: recorded in {time.perf_counter() - t0:.0f} s -> "
          + ", ".join(str(p.relative_to(ROOT)) for p in made))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="notebook names without .ipynb")
    parser.add_argument("--all", action="store_true", help="record every notebook")
    parser.add_argument("--outputs", type=Path, help="also save each executed notebook in this folder")
    args = parser.parse_args()
    names = [p.stem for p in sorted((ROOT / "notebooks").glob("*.ipynb"))] if args.all else args.names
    if not names:
        parser.error("name a notebook or pass --all")
    for name in names:
        record(name, args.outputs)


if __name__ == "__main__":
    main()
