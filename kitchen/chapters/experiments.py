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


TOOL_CHOICE_MARKS = ("parses", "validates", "right_tool", "answer_right")


def tool_choice_table(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Chapter 07's comparison, one row per tier and tool_choice setting: each mark counted.

    >>> entry = {"model": {"model_name": "m", "dtype": "int8"}, "rows": [
    ...     {"setting": "auto", "parses": True, "validates": True, "right_tool": False, "answer_right": False}]}
    >>> tool_choice_table({"0.5b": entry})[0]["validates"]
    1
    """
    out = []
    for tier, entry in results.items():
        settings = list(dict.fromkeys(r["setting"] for r in entry["rows"]))
        for setting in settings:
            rows = [r for r in entry["rows"] if r["setting"] == setting]
            out.append({"tier": tier, "model": entry["model"]["model_name"], "dtype": entry["model"]["dtype"],
                        "setting": setting, "tasks": len(rows),
                        **{k: sum(bool(r[k]) for r in rows) for k in TOOL_CHOICE_MARKS}})
    return out
