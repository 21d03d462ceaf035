"""Chapter 06 experiment: accuracy against digit count, tools off and tools on, per installed pack.

    python scripts/digits_sweep.py                          # every installed pack, 20 problems each
    python scripts/digits_sweep.py --tiers 0.5b --problems 20 --max-digits 6
    python scripts/digits_sweep.py --regrade                # grade the saved replies again, no model

For each digit count d = 1 … max-digits: `problems` seeded random d-digit × d-digit
multiplications. Tools off: answered in batches (left padding). Tools on: the harness with the
calculator. Results and settings go to data/experiments/digits_sweep.json, with model, source
and date. The notebook plots that file.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from kitchen.chapters.experiments import labelled, load_results, save_results  # noqa: E402
from kitchen.model.selection import installed_tiers  # noqa: E402
from kitchen.model.load import load_model  # noqa: E402
from kitchen.chapters.sweep import make_problems, regrade, run_off, run_on, summarize_sweep  # noqa: E402

RESULTS_FILE = ROOT / "data" / "experiments" / "digits_sweep.json"


def run_tier(tier: str, problems: int, max_digits: int, seed: int, batch: int, off_tokens: int) -> dict:
    model = load_model(tier, "pack")
    rows = []
    seconds = {"off": 0.0, "on": 0.0}
    for digits in range(1, max_digits + 1):
        todo = make_problems(digits, problems, seed)
        t0 = time.perf_counter()
        rows += run_off(model, todo, batch_size=batch, max_new_tokens=off_tokens)
        t1 = time.perf_counter()
        rows += run_on(model, todo)
        t2 = time.perf_counter()
        seconds["off"] += t1 - t0
        seconds["on"] += t2 - t1
        done = [p for p in summarize_sweep(rows) if p.digits == digits]
        print(f"{tier} {digits}×{digits}: " + ", ".join(f"{p.mode} {p.right}/{p.n}" for p in done)
              + f" ({t1 - t0:.0f} s off, {t2 - t1:.0f} s on)", flush=True)
    return labelled(model, "scripts/digits_sweep.py",
                    settings={"problems_per_digit_count": problems, "digit_counts": list(range(1, max_digits + 1)),
                              "seed": seed, "tools_off": {"batch_size": batch, "max_new_tokens": off_tokens},
                              "tools_on": {"tools": ["calculator"], "max_steps": 3, "max_new_tokens": 80},
                              "decoding": "greedy"},
                    seconds={k: round(v, 1) for k, v in seconds.items()}, rows=rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiers", nargs="*", default=installed_tiers())
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--max-digits", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--off-tokens", type=int, default=96)
    parser.add_argument("--regrade", action="store_true",
                        help="grade the saved replies again with today's rules (kitchen.chapters.sweep.regrade): "
                             "answers re-extracted, tools-on calls parsed again; runs no model")
    args = parser.parse_args()
    results = load_results(RESULTS_FILE)
    if args.regrade:
        for tier, run in results.items():
            before = sum(r["right"] for r in run["rows"])
            run["rows"] = regrade(run["rows"], run["settings"]["tools_off"]["max_new_tokens"])
            run["regraded"] = datetime.date.today().isoformat()
            print(f"{tier}: {before} right before, {sum(r['right'] for r in run['rows'])} after regrading")
        save_results(RESULTS_FILE, results)
        return
    for tier in args.tiers:
        results[tier] = run_tier(tier, args.problems, args.max_digits, args.seed, args.batch, args.off_tokens)
        save_results(RESULTS_FILE, results)
    print(f"wrote {RESULTS_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
