"""Chapter 08: BFCL's single-turn categories on an offline pack, in one mode, graded by BFCL.

    python scripts/bfcl_run.py --tier 0.5b --mode native            # 1,240 cases, default dtype
    python scripts/bfcl_run.py --tier 1.5b --mode prompt --dtype bfloat16
    python scripts/bfcl_run.py --tier 0.5b --mode native --slice 20 --dtype float32 --out data/bfcl/slice.jsonl
    python scripts/bfcl_run.py --tier 0.5b --mode native --compare 24  # batched vs one at a time
    python scripts/bfcl_run.py --tier 1.5b --mode native --dtype int8 --which-bits  # 7- or 8-bit activations?

Writes one JSON line per case to data/bfcl/<tier>-<mode>-<dtype>.jsonl as batches finish; run it
again and it resumes where it stopped. Prints cases/s, and the accuracy per category. `--compare N`
runs the first N cases (of the slice, if given) batched and one at a time, and prints the ratio of
their speeds and how many replies and verdicts differ (saved to data/bfcl/batching-<tier>-<mode>-<dtype>.json).
`--which-bits` re-runs the first batch of a committed int8 run with 8-bit and with 7-bit activations and
prints how many of its replies each gives back unchanged. On a CPU with VNNI, all of them at 8 bits says a
VNNI CPU made the run; 7 bits here does not repeat a CPU without VNNI exactly (its kernel sums differently:
8 of 16 replies of such a run came back at 7 bits on a VNNI CPU).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from kitchen.bfcl.data import CATEGORIES, load_cases  # noqa: E402
from kitchen.bfcl.modes import MODES  # noqa: E402
from kitchen.bfcl.results import RESULTS_DIR, results_path, slice_cases, summary_table  # noqa: E402
from kitchen.bfcl.runner import read_results, rerun_first_batch, run_cases  # noqa: E402
from kitchen.model.engines.quantized import Int8Linear  # noqa: E402
from kitchen.model.load import load_model  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tier", default="0.5b", choices=["0.5b", "1.5b"])
    parser.add_argument("--mode", default="native", choices=MODES)
    parser.add_argument("--dtype", default=None, help="float32, bfloat16 or int8 (default: the machine's best)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--slice", type=int, default=0, help="only the first N cases of each category")
    parser.add_argument("--categories", nargs="*", default=list(CATEGORIES))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--compare", type=int, default=0, help="time N cases batched against one at a time")
    parser.add_argument("--which-bits", action="store_true", help="re-run an int8 run's first batch at 8 and 7 bits")
    args = parser.parse_args()

    model = load_model(args.tier, "pack", dtype=args.dtype)
    cases = load_cases(args.categories)
    if args.slice:
        cases = slice_cases(cases, args.slice)
    if args.compare:
        compare(model, cases[: args.compare], args.mode, args.batch_size)
        return
    if args.which_bits:
        which_bits(model, cases, args.mode, args.batch_size, args.out)
        return
    out = args.out or results_path(args.tier, args.mode, model.info.dtype)
    out.parent.mkdir(parents=True, exist_ok=True)
    already = len(read_results(out))
    t0 = time.perf_counter()
    lines = run_cases(model, cases, args.mode, out, batch_size=args.batch_size)
    seconds = time.perf_counter() - t0
    ran = len(read_results(out)) - already
    print(f"{out}: {len(lines)} cases, {ran} run now in {seconds:.0f} s: {ran / seconds:.2f} cases/s "
          f"({model.info.model_name}, {model.info.dtype}, batches of {args.batch_size})")
    print(summary_table(lines))


def compare(model, cases, mode, batch_size) -> None:
    t0 = time.perf_counter()
    batched = run_cases(model, cases, mode, None, batch_size=batch_size, progress=False)
    t1 = time.perf_counter()
    single = run_cases(model, cases, mode, None, batch_size=1, progress=False)
    t2 = time.perf_counter()
    differ = [a["id"] for a, b in zip(batched, single) if a["reply"] != b["reply"]]
    verdicts = [a["id"] for a, b in zip(batched, single) if a["valid"] != b["valid"]]
    result = {"model": model.info.model_name, "source": model.info.source, "dtype": model.info.dtype,
              "mode": mode, "date": datetime.date.today().isoformat(), "cases": [c.id for c in cases],
              "batch_size": batch_size, "batched_seconds": round(t1 - t0, 1), "single_seconds": round(t2 - t1, 1),
              "speedup": round((t2 - t1) / (t1 - t0), 2), "replies_that_differ": differ,
              "verdicts_that_differ": verdicts, "batched_right": sum(a["valid"] for a in batched),
              "single_right": sum(b["valid"] for b in single)}
    path = RESULTS_DIR / f"batching-{model.info.tier}-{mode}-{model.info.dtype}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{len(cases)} cases: batched (size {batch_size}) {len(cases) / (t1 - t0):.2f} cases/s, one at a time "
          f"{len(cases) / (t2 - t1):.2f} cases/s: {result['speedup']:.2f}x; replies that differ: {len(differ)}, "
          f"verdicts that differ: {len(verdicts)} -> {path}")


def which_bits(model, cases, mode, batch_size, out: Path | None) -> None:
    path = out or results_path(model.info.tier, mode, model.info.dtype)
    committed = read_results(path)
    by_id = {case.id: case for case in cases}
    layers = [m for m in model.hf_model.modules() if isinstance(m, Int8Linear)]
    for bits in (8, 7):
        for layer in layers:
            layer.reduce_range = bits == 7
        pairs = rerun_first_batch(model, committed, by_id, mode, batch_size)
        same = sum(old["reply"] == new["reply"] for old, new in pairs)
        print(f"{path.name}, first batch ({len(pairs)} cases) with {bits}-bit activations: "
              f"{same}/{len(pairs)} replies identical to the committed ones")


if __name__ == "__main__":
    main()
