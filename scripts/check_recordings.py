"""Re-run every recorded model call live and say which replies differ, token for token.

    python scripts/check_recordings.py                  # every recording, both tiers
    python scripts/check_recordings.py 0.5b/03_the_harness

A change to the engine (a kernel, a cache, a split of the prompt) may change the last digits of
the numbers and so, rarely, a greedy choice. The recordings in `data/recordings/` hold each
model call the notebooks make, with its prompt and settings, made live in float32 from the
offline packs: this script makes each call again, in the recorded order and in the same way
(batches of the recorded size), on the recording's tier, source and dtype, and compares the
token ids. Exit status 1 when any reply differs.
"""

from __future__ import annotations

import json
import os
import sys
from itertools import groupby
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "data" / "recordings"


def batches(runs: list[dict]) -> list[list[dict]]:
    """Consecutive batch rows with the same batch size, cut into batches of that size."""
    out = []
    for size, rows in groupby(runs, key=lambda r: r["settings"]["batch"]):
        rows = list(rows)
        out += [rows[i:i + size] for i in range(0, len(rows), size)]
    return out


def check(model, runs: list[dict]) -> tuple[int, list[str]]:
    """How many replies were compared, and a line for each that differs."""
    compared, differ = 0, []
    generate = [r for r in runs if r["kind"] == "generate"]
    for run in generate:
        s = run["settings"]
        gen = model.generate(run["messages"], run["tools"] or None, prefix=run["prefix"],
                             max_new_tokens=s["max_new_tokens"], stop=s["stop"], top_k=s["top_k"],
                             reuse_cache=s["reuse_cache"], grammar=s.get("grammar"))
        compared += 1
        if gen.token_ids != run["token_ids"]:
            differ.append(f"generate {run['key']}: recorded {run['text'][:60]!r}, now {gen.text[:60]!r}")
    for rows in batches([r for r in runs if r["kind"] == "batch"]):
        gens = model.generate_prompts([r["prompt"] for r in rows], max_new_tokens=rows[0]["settings"]["max_new_tokens"],
                                      grammars=[r["settings"].get("grammar") for r in rows])
        for run, gen in zip(rows, gens):
            compared += 1
            if gen.token_ids != run["token_ids"]:
                differ.append(f"batch {run['key']}: recorded {run['text'][:60]!r}, now {gen.text[:60]!r}")
    return compared, differ


def main(names: list[str]) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from kitchen.model.load import load_model

    paths = [FOLDER / f"{n}.json" for n in names] or sorted(FOLDER.glob("*/*.json"))
    models, failed = {}, 0
    for path in paths:
        recording = json.loads(path.read_text())
        m = recording["model"]
        key = (m["tier"], m["source"], m["dtype"])
        if key not in models:
            models[key] = load_model(m["tier"], m["source"], dtype=m["dtype"], announce=False)
        compared, differ = check(models[key], recording["runs"])
        failed += bool(differ)
        print(f"{path.parent.name}/{path.stem}: {compared} replies, {len(differ)} differ", flush=True)
        for line in differ:
            print("   ", line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
