"""Chapter 07 experiment: the same tasks with no grammar, with tool_choice="auto" and "required".

    python scripts/tool_choice_comparison.py                  # both packs, int8 weights
    python scripts/tool_choice_comparison.py --tiers 0.5b --dtype float32

Each single-step task in data/tasks.json (22 requests, all five toy tools offered) runs through
the harness once per setting: greedy, the same prompts, at most 3 model calls of 160 tokens. Per
run, at the first step: did the reply hold a call that parses (a call found, no parse error), did
every call name a listed tool with arguments that pass its schema, did the first call name a
right tool; and at the end: does the answer hold the true value. Results:
data/experiments/tool_choice_results.json, labelled with model, source, dtype and date.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from kitchen.model.selection import installed_tiers  # noqa: E402
from kitchen.chapters.experiments import labelled, load_results, save_results, tool_choice_table  # noqa: E402
from kitchen.grammar.calls import auto_trigger  # noqa: E402
from kitchen.harness.loop import run_harness  # noqa: E402
from kitchen.model.load import load_model  # noqa: E402
from kitchen.tools.schemas import tool_schema  # noqa: E402
from kitchen.chapters.tasks import grade, load_tasks  # noqa: E402
from kitchen.harness.toolbox import arguments_error  # noqa: E402
from kitchen.tools import TOY_TOOLS  # noqa: E402

RESULTS_FILE = ROOT / "data" / "experiments" / "tool_choice_results.json"
SETTINGS = {"none (no grammar)": None, "auto": "auto", "required": "required"}
PARAMETERS = {s["function"]["name"]: s["function"]["parameters"] for s in map(tool_schema, TOY_TOOLS)}


def first_step_marks(step) -> dict:
    """What the first reply held: a call that parses, calls that validate, the tools named."""
    calls = step.parsed.calls
    valid = bool(calls) and all(c.name in PARAMETERS and arguments_error(PARAMETERS[c.name], c.arguments) is None
                                for c in calls)
    return {"parses": bool(calls) and not step.parsed.errors, "validates": valid,
            "called": [c.name for c in calls], "parse_errors": [e.kind for e in step.parsed.errors]}


def run_tier(tier: str, dtype: str) -> dict:
    model = load_model(tier, "pack", dtype=dtype)
    tasks = load_tasks("single")
    rows = []
    for setting, choice in SETTINGS.items():
        for task in tasks:
            trace = run_harness(model, task.request, TOY_TOOLS, tool_choice=choice, max_steps=3,
                                max_new_tokens=160)
            first = trace.steps[0]
            marks = first_step_marks(first)
            row = {"setting": setting, "request": task.request, "tools": task.tools, **marks,
                   "right_tool": bool(marks["called"]) and marks["called"][0] in task.tools,
                   "answer_right": grade(task, trace).answer_right,
                   "trigger": auto_trigger(first.text, first.generation.token_ids) if choice == "auto" else "",
                   "stop_reason": trace.stop_reason, "first_text": first.text, "answer": trace.answer}
            rows.append(row)
            print(f"{tier} {setting:18} parses={row['parses']!s:5} valid={row['validates']!s:5} "
                  f"tool={row['right_tool']!s:5} answer={row['answer_right']!s:5} {task.request[:50]}",
                  flush=True)
    return labelled(model, "scripts/tool_choice_comparison.py",
                    settings={"decoding": "greedy", "max_steps": 3, "max_new_tokens": 160,
                              "tools": "all five", "tasks": "data/tasks.json (single)",
                              "task_count": len(tasks), "tool_choice": list(SETTINGS)},
                    rows=rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiers", nargs="*", default=installed_tiers())
    parser.add_argument("--dtype", default="int8", help="int8 (default here: fastest on a CPU with VNNI)")
    args = parser.parse_args()
    results = load_results(RESULTS_FILE)
    for tier in args.tiers:
        results[tier] = run_tier(tier, args.dtype)
        save_results(RESULTS_FILE, results)
    for row in tool_choice_table(results):
        print(row)
    print(f"wrote {RESULTS_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
