"""Chapter 02's experiment on tool descriptions: its tasks, the vague variant, and the summary.

The requests and the vague descriptions live in `data/experiments/description_tasks.json`;
`scripts/description_experiment.py` runs them and writes `description_results.json`.
"""

from __future__ import annotations

import json
from collections import Counter

from kitchen.settings import DATA
from kitchen.harness.prompts import edit_schema
from kitchen.tools.schemas import tool_schema
from kitchen.tools import TOOLS_BY_NAME, TOY_TOOLS

TASKS_FILE = DATA / "experiments" / "description_tasks.json"
DESCRIPTION_RESULTS = DATA / "experiments" / "description_results.json"


def description_tasks() -> dict:
    return json.loads(TASKS_FILE.read_text())


def variant_schemas(variant: str) -> list[dict]:
    """The five toy tools' schemas, "precise" (their docstrings) or "vague" (replaced texts)."""
    schemas = [tool_schema(fn) for fn in TOY_TOOLS]
    if variant == "precise":
        return schemas
    vague = description_tasks()["vague"]
    out = []
    for schema in schemas:
        texts = vague[schema["function"]["name"]]
        out.append(edit_schema(schema, description=texts["description"], parameters=texts["parameters"]))
    return out


# count_words' parameter descriptions as they were before chapter 02 showed the models copying
# their examples ("Humpty Dumpty", "the cat sat on the mat") into calls.
EXAMPLE_PARAMETERS = {
    "text": 'The text to count, e.g. "the cat sat on the mat". Leave empty when giving rhyme_title.',
    "rhyme_title": 'The title of a nursery rhyme to count instead, e.g. "Humpty Dumpty". '
                   "Leave empty when giving text.",
}


def count_words_schema(with_examples: bool) -> dict:
    """count_words' schema as it is now, or with the example values its descriptions used to give.

    >>> "Humpty Dumpty" in json.dumps(count_words_schema(True))
    True
    >>> "Humpty Dumpty" in json.dumps(count_words_schema(False))
    False
    """
    schema = tool_schema(TOOLS_BY_NAME["count_words"])
    return edit_schema(schema, parameters=EXAMPLE_PARAMETERS) if with_examples else schema


def summarize_descriptions(rows: list[dict]) -> dict[str, Counter]:
    """Per variant: how many requests got the right tool, a wrong tool, or no call at all."""
    out: dict[str, Counter] = {}
    for r in rows:
        c = out.setdefault(r["variant"], Counter())
        c["requests"] += 1
        c["right tool" if r["right"] else "no call" if r["called"] is None else "wrong tool"] += 1
    return out
