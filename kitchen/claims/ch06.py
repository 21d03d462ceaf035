"""Chapter 06's claims: the dashboard's question, and the live slice of the digits sweep."""

from __future__ import annotations

from kitchen.chapters.lab import compare
from kitchen.chapters.sweep import make_problems, run_off, run_on, summarize_sweep
from kitchen.tools import calculator
from kitchen.claims.core import SMALL_PACK, claim

DASHBOARD_QUESTION = "What is 1234 × 5678?"
SMALL_HERE = SMALL_PACK


def dashboard_run(model):
    return compare(model, DASHBOARD_QUESTION, [calculator])


def live_slice(model) -> list[dict]:
    """Three problems each with 2 and 4 digits (seed 1): tools off in one batch, then tools on."""
    problems = make_problems(2, 3, seed=1) + make_problems(4, 3, seed=1)
    return run_off(model, problems, batch_size=len(problems)) + run_on(model, problems)


@claim("06.dashboard", "on the dashboard's question the 0.5B pack is wrong alone and right with the calculator",
       "0.5b", SMALL_HERE, dashboard_run)
def _dashboard(result) -> tuple[bool, str]:
    off, on = result.off_line, result.on_line
    return "✗ wrong" in off and "✓ right" in on, f"tools off: {off}; tools on: {on}"


@claim("06.slice_tools_on_all_right", "in the live slice, tools on answers all six problems right", "0.5b",
       SMALL_HERE, live_slice)
def _slice_on(rows) -> tuple[bool, str]:
    on = [r for r in rows if r["mode"] == "on"]
    return len(on) == 6 and all(r["right"] for r in on), f"tools on right: {sum(r['right'] for r in on)}/{len(on)}"


@claim("06.slice_tools_off_fails_at_4_digits", "in the live slice, tools off gets none of the 4-digit problems right",
       "0.5b", SMALL_HERE, live_slice)
def _slice_off(rows) -> tuple[bool, str]:
    points = {(p.mode, p.digits): p for p in summarize_sweep(rows)}
    four = points.get(("off", 4))
    return four is not None and four.right == 0, (f"tools off, 4×4: {four.right}/{four.n}" if four else "no 4×4 rows")
