"""Chapter 04 experiment: the same tasks through the native protocol and three prompt-based ones.

    python scripts/protocol_comparison.py               # every installed pack
    python scripts/protocol_comparison.py --tiers 0.5b
    python scripts/protocol_comparison.py --per-tool 2    # the first two tasks of each tool only

Each single-step task in data/tasks.json runs through the harness once per protocol (greedy, all
five toy tools offered, at most 3 model calls). Per run it records whether a call was detected at
the first step (with the protocol's robust detector, and whether its strict detector alone would
have found it), whether that call named a right tool with arguments that passed the schema, and
whether the final answer holds the true value. Results: data/experiments/protocol_results.json,
labelled with model, source and date.
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
from kitchen.harness.loop import run_harness  # noqa: E402
from kitchen.model.selection import installed_tiers  # noqa: E402
from kitchen.model.load import load_model  # noqa: E402
from kitchen.harness.parsing import parse_tool_calls  # noqa: E402
from kitchen.harness.protocols import PROTOCOLS  # noqa: E402
from kitchen.tools.schemas import tool_schema  # noqa: E402
from kitchen.chapters.tasks import grade, load_tasks  # noqa: E402
from kitchen.tools import TOY_TOOLS  # noqa: E402

RESULTS_FILE = ROOT / "data" / "experiments" / "protocol_results.json"


def strict_formats(protocol) -> tuple[str, ...]:
    return tuple(getattr(protocol, "own_formats", None) or ("qwen",))


def chosen_tasks(per_tool: int | None) -> list:
    """The single-step tasks, or the first `per_tool` of each tool's (a smaller run that still
    covers all five tools)."""
    tasks = load_tasks("single")
    if per_tool is None:
        return tasks
    seen: dict[str, int] = {}
    chosen = []
    for task in tasks:
        tool = task.tools[0]
        if seen.get(tool, 0) < per_tool:
            chosen.append(task)
            seen[tool] = seen.get(tool, 0) + 1
    return chosen


def run_tier(tier: str, per_tool: int | None = None) -> dict:
    model = load_model(tier, "pack")
    schemas = [tool_schema(f) for f in TOY_TOOLS]
    rows = []
    tasks = chosen_tasks(per_tool)
    for name, protocol in PROTOCOLS.items():
        for task in tasks:
            trace = run_harness(model, task.request, TOY_TOOLS, protocol=protocol, max_steps=3,
                                max_new_tokens=160)
            first = trace.steps[0]
            g = grade(task, trace)
            strict = parse_tool_calls(first.text, strict_formats(protocol), tools=schemas)
            rows.append({"protocol": name, "request": task.request, "tools": task.tools,
                         "detected": bool(first.parsed.calls), "strict_detected": bool(strict.calls),
                         "formats": sorted({c.format for c in first.parsed.calls}),
                         "right_tool_valid": g.valid, "answer_right": g.answer_right,
                         "stop_reason": trace.stop_reason, "first_text": first.text,
                         "answer": trace.answer})
            print(f"{tier} {name:12} detected={rows[-1]['detected']!s:5} strict={rows[-1]['strict_detected']!s:5} "
                  f"valid={g.valid!s:5} answer={g.answer_right!s:5} {task.request[:50]}", flush=True)
    return labelled(model, "scripts/protocol_comparison.py",
                    settings={"decoding": "greedy", "max_steps": 3, "max_new_tokens": 160, "tools": "all five",
                              "tasks": "data/tasks.json (single)" + (
                                  f", the first {per_tool} of each tool's" if per_tool else ""),
                              "task_count": len(tasks)},
                    rows=rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiers", nargs="*", default=installed_tiers())
    parser.add_argument("--per-tool", type=int, help="run only the first N tasks of each tool")
    args = parser.parse_args()
    results = load_results(RESULTS_FILE)
    for tier in args.tiers:
        results[tier] = run_tier(tier, args.per_tool)
        save_results(RESULTS_FILE, results)
    print(f"wrote {RESULTS_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
