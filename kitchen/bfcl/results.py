"""The committed BFCL results: where they live, the slices, and the tables chapter 08 shows.

Owns the file names (data/bfcl/<tier>-<mode>-<dtype>.jsonl), the CI slice (the first N cases of
each category), accuracy per category, BFCL's error families, and the paper's rows (Table 1 of
the BFCL paper, ICML 2025: non-live AST accuracy, %). Does not run anything (`runner`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Sequence

from kitchen.settings import DATA
from kitchen.bfcl.data import CATEGORIES, Case
from kitchen.bfcl.grading import error_family
from kitchen.bfcl.runner import read_results

RESULTS_DIR = DATA / "bfcl"

# The BFCL paper (Patil et al., ICML 2025), Table 1, non-live AST accuracy in %. Its "simple"
# averages Python, Java and JavaScript; chapter 08 runs the Python one only.
PAPER = {
    ("1.5b", "FC"): {"simple": 72.4, "multiple": 87.0, "parallel": 81.5, "parallel_multiple": 75.5, "irrelevance": 62.7},
    ("1.5b", "Prompt"): {"simple": 71.0, "multiple": 86.0, "parallel": 70.0, "parallel_multiple": 66.5, "irrelevance": 63.0},
    ("0.5b", "FC"): {"simple": 61.2, "multiple": 78.0, "parallel": 60.0, "parallel_multiple": 50.0, "irrelevance": 46.2},
    ("0.5b", "Prompt"): {"simple": 58.2, "multiple": 68.0, "parallel": 53.5, "parallel_multiple": 33.0, "irrelevance": 16.4},
}


def results_path(tier: str, mode: str, dtype: str) -> Path:
    """data/bfcl/<tier>-<mode>-<dtype>.jsonl"""
    return RESULTS_DIR / f"{tier}-{mode}-{dtype}.jsonl"


def slice_cases(cases: Sequence[Case], per_category: int) -> list[Case]:
    """The first `per_category` cases of each category, categories in BFCL's order."""
    by: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by[case.category].append(case)
    return [c for category in CATEGORIES for c in by.get(category, [])[:per_category]]


def accuracy(lines: Sequence[dict]) -> dict[str, float]:
    """Per category, the share of right verdicts in %, and "overall" over every line.

    >>> accuracy([{"category": "parallel", "valid": True}, {"category": "parallel", "valid": False}])
    {'parallel': 50.0, 'overall': 50.0}
    """
    by: dict[str, list[bool]] = defaultdict(list)
    for line in lines:
        by[line["category"]].append(bool(line["valid"]))
    out = {c: 100 * sum(v) / len(v) for c in CATEGORIES if (v := by.get(c))}
    if lines:
        out["overall"] = 100 * sum(bool(line["valid"]) for line in lines) / len(lines)
    return out


def cases_per_second(lines: Sequence[dict]) -> float | None:
    """How fast a run went: cases over the generation time its lines record (None if they don't).

    >>> cases_per_second([{"seconds": 0.5}, {"seconds": 1.5}])
    1.0
    """
    seconds = [line["seconds"] for line in lines if "seconds" in line]
    return len(seconds) / sum(seconds) if seconds and sum(seconds) > 0 else None


FULL_RUN = 1240  # every case of the five categories


def committed_runs(complete: bool = True) -> dict[tuple[str, str, str], list[dict]]:
    """The runs committed in data/bfcl, by (tier, mode, dtype); only complete ones (every case)
    unless `complete=False` (a run still under way is committed as it stands, to be resumed)."""
    runs = {}
    for path in sorted(RESULTS_DIR.glob("*.jsonl")):
        parts = path.stem.split("-")
        if len(parts) == 3:
            lines = read_results(path)
            if len(lines) == FULL_RUN or not complete:
                runs[(parts[0], parts[1], parts[2])] = lines
    return runs


def by_function_count(lines: Sequence[dict], cases: Sequence[Case],
                      categories: Sequence[str] = ("simple_python", "multiple")) -> dict[int, tuple[int, int]]:
    """(right, total) by how many functions the case offered, over `categories` (by default the
    two that expect exactly one call, so the count of calls does not get in the way).

    >>> cases = [Case("a", "multiple", [], [{}, {}], []), Case("b", "multiple", [], [{}], [])]
    >>> by_function_count([{"id": "a", "category": "multiple", "valid": True},
    ...                    {"id": "b", "category": "multiple", "valid": False}], cases)
    {1: (0, 1), 2: (1, 1)}
    """
    offered = {c.id: len(c.functions) for c in cases}
    out: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for line in lines:
        if line["category"] in categories:
            n = offered[line["id"]]
            out[n][0] += bool(line["valid"])
            out[n][1] += 1
    return {n: (right, total) for n, (right, total) in sorted(out.items())}


def error_families(lines: Sequence[dict]) -> Counter:
    """How many wrong replies fall in each of BFCL's error families."""
    return Counter(error_family(line["error_type"]) for line in lines if not line["valid"])


def summary_table(lines: Sequence[dict]) -> str:
    """Accuracy per category, as text (the script prints it)."""
    acc = accuracy(lines)
    counts = Counter(line["category"] for line in lines)
    rows = [f"{c:<18} {counts[c]:>4}  {acc[c]:5.1f}%" for c in CATEGORIES if c in acc]
    return "\n".join(rows + [f"{'overall':<18} {len(lines):>4}  {acc.get('overall', 0):5.1f}%"])
