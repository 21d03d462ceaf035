"""The results files of the experiment scripts (`scripts/*_experiment.py`, `*_comparison.py`, `*_sweep.py`).

Each file in `data/experiments/` holds one entry per tier, labelled with the exact model that made
it (its info and one-line announcement), the date and the script. A script does
`results = load_results(path)`, then `results[tier] = labelled(model, "scripts/x.py", rows=rows)`,
then `save_results(path, results)`.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any


def labelled(model, script: str, **fields: Any) -> dict[str, Any]:
    """`fields` under the label of the model that produced them, today's date and the script."""
    return {"model": model.info.to_dict(), "announcement": model.describe(),
            "date": datetime.date.today().isoformat(), "script": script, **fields}


def load_results(path: Path) -> dict[str, Any]:
    """The results saved so far (one entry per tier), or {} before the first run."""
    return json.loads(path.read_text()) if path.exists() else {}


def save_results(path: Path, results: dict[str, Any]) -> None:
    path.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n")
