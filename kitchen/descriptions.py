"""Chapter 02's experiment on tool descriptions: its tasks, the vague variant, and the summary.

The requests and the vague descriptions live in `data/experiments/description_tasks.json`;
`scripts/description_experiment.py` runs them and writes `description_results.json`.
"""

from __future__ import annotations

import json
from collections import Counter

from .paths import DATA
from .prompts import edit_schema
from .schemas import tool_schema
from .tools import TOY_TOOLS

TASKS_FILE = DATA / "experiments" / "description_tasks.json"
RESULTS_FILE = DATA / "experiments" / "description_results.json"


def load_tasks() -> dict:
    return json.loads(TASKS_FILE.read_text())


def variant_schemas(variant: str) -> list[dict]:
    """The five toy tools' schemas, "precise" (their docstrings) or "vague" (replaced texts)."""
    schemas = [tool_schema(fn) for fn in TOY_TOOLS]
    if variant == "precise":
        return schemas
    vague = load_tasks()["vague"]
    out = []
    for schema in schemas:
        texts = vague[schema["function"]["name"]]
        schema = edit_schema(schema, description=texts["description"])
        for param, text in texts["parameters"].items():
            schema["function"]["parameters"]["properties"][param]["description"] = text
        out.append(schema)
    return out


def summarize(rows: list[dict]) -> dict[str, Counter]:
    """Per variant: how many requests got the right tool, a wrong tool, or no call at all."""
    out: dict[str, Counter] = {}
    for r in rows:
        c = out.setdefault(r["variant"], Counter())
        c["requests"] += 1
        c["right tool" if r["right"] else "no call" if r["called"] is None else "wrong tool"] += 1
    return out
