"""Chapter 02 experiment: do tool descriptions change which tool the model calls?

    python scripts/description_experiment.py              # every installed pack
    python scripts/description_experiment.py --tiers 0.5b

For each request in data/experiments/description_tasks.json, the model sees the five toy tools
twice: with their real, precise descriptions (from the docstrings) and with vague ones (same
names and parameters, descriptions replaced). One greedy reply each, stopped at the end of a call;
the first call found by the harness's parser is compared with the tool the request needs.
Results go to data/experiments/description_results.json, labelled with model, source and date.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from kitchen.chapters.experiments import labelled, load_results, save_results  # noqa: E402
from kitchen.chapters.descriptions import TASKS_FILE, DESCRIPTION_RESULTS, description_tasks, variant_schemas  # noqa: E402
from kitchen.model.selection import installed_tiers  # noqa: E402
from kitchen.model.load import load_model  # noqa: E402
from kitchen.harness.parsing import NATIVE_FORMATS, parse_tool_calls  # noqa: E402


def run_tier(tier: str) -> dict:
    model = load_model(tier, "pack")
    tasks = description_tasks()
    rows = []
    for variant in ("precise", "vague"):
        schemas = variant_schemas(variant)
        for task in tasks["requests"]:
            gen = model.generate([{"role": "user", "content": task["request"]}], schemas,
                                 stop=["</tool_call>"], max_new_tokens=80, reuse_cache=False)
            parsed = parse_tool_calls(gen.text, NATIVE_FORMATS, tools=schemas)
            called = parsed.calls[0].name if parsed.calls else None
            rows.append({"variant": variant, "request": task["request"], "expected": task["tool"],
                         "called": called, "right": called == task["tool"], "text": gen.text})
            print(f"{tier} {variant:8} {'✓' if called == task['tool'] else '✗'} {called!s:14} {task['request'][:60]}",
                  flush=True)
    return labelled(model, "scripts/description_experiment.py",
                    settings={"decoding": "greedy", "max_new_tokens": 80, "stop": ["</tool_call>"],
                              "parser_formats": list(NATIVE_FORMATS),
                              "tasks": str(TASKS_FILE.relative_to(ROOT))},
                    rows=rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiers", nargs="*", default=installed_tiers())
    args = parser.parse_args()
    results = load_results(DESCRIPTION_RESULTS)
    for tier in args.tiers:
        results[tier] = run_tier(tier)
    save_results(DESCRIPTION_RESULTS, results)
    print(f"wrote {DESCRIPTION_RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
