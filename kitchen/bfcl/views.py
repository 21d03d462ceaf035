"""Chapter 08's views: our BFCL runs beside the paper's rows, one case graded, and a live runner.

Owns the tables and the widget that runs any case live and grades it. Does not run a whole
category (`kitchen.bfcl.runner`) or grade (`kitchen.bfcl.grading`).
"""

from __future__ import annotations

import html
import json
from collections import Counter
from typing import Any, Sequence

import ipywidgets as w
from IPython.display import display

from kitchen.views.display import HTML, table
from kitchen.bfcl.data import CATEGORIES, Case, load_cases
from kitchen.bfcl.grading import error_family
from kitchen.bfcl.modes import MODES
from kitchen.bfcl.results import PAPER, accuracy, cases_per_second, committed_runs
from kitchen.bfcl.runner import run_cases

SHORT = {"simple_python": "simple (Python)", "multiple": "multiple", "parallel": "parallel",
         "parallel_multiple": "parallel multiple", "irrelevance": "irrelevance"}


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def results_table(runs: dict[tuple[str, str, str], list[dict]] | None = None) -> HTML:
    """Accuracy per category (%) of every committed run, then the paper's rows for the same
    models (their "simple" averages Python, Java and JavaScript)."""
    runs = committed_runs() if runs is None else runs
    rows = []
    for (tier, mode, dtype), lines in sorted(runs.items()):
        acc = accuracy(lines)
        speed = cases_per_second(lines)
        rows.append([f"{tier.upper()} Coder pack · {mode} · {dtype} (ours)",
                     *(_cell(acc.get(c)) for c in CATEGORIES), _cell(acc.get("overall")), len(lines),
                     "" if speed is None else f"{speed:.2f}"])
    for (tier, mode), scores in PAPER.items():
        rows.append([f"Qwen2.5-{tier.upper()}-Instruct · {mode} (paper)",
                     *(_cell(scores[c if c != "simple_python" else "simple"]) for c in CATEGORIES), "", "", ""])
    return table(rows, ["run", *(SHORT[c] for c in CATEGORIES), "all", "cases", "cases/s"])


def families_table(lines: Sequence[dict]) -> HTML:
    """Wrong replies per category, by BFCL's error family."""
    counts = Counter((line["category"], error_family(line["error_type"])) for line in lines if not line["valid"])
    families = sorted({f for _, f in counts}, key=lambda f: -sum(n for (_, g), n in counts.items() if g == f))
    rows = [[SHORT[c], *(counts.get((c, f), 0) or "" for f in families)] for c in CATEGORIES]
    return table(rows, ["category", *families])


def case_html(case: Case, line: dict, committed: dict | None = None) -> HTML:
    """One case: the question, the functions offered, the reply, the calls found and BFCL's verdict."""
    verdict = "right" if line["valid"] else f"wrong · {line['error_type']}"
    colour = "#1a7f37" if line["valid"] else "#b42318"
    parts = [f"<b>{html.escape(case.id)}</b> ({SHORT[case.category]}), mode {html.escape(line['mode'])}",
             f"<div><b>question:</b> {html.escape(case.question)}</div>",
             f"<div><b>functions offered:</b> {html.escape(', '.join(f['name'] for f in case.functions))}</div>",
             f"<div><b>reply:</b></div><pre style='white-space:pre-wrap;margin:0 0 4px'>{html.escape(line['reply'])}</pre>",
             f"<div><b>calls found:</b> {html.escape(json.dumps(line['calls'], ensure_ascii=False))}</div>",
             f"<div><b>BFCL's verdict:</b> <span style='color:{colour}'>{html.escape(verdict)}</span></div>"]
    if line["errors"]:
        parts.append(f"<div><b>checker says:</b> {html.escape(line['errors'][0])}</div>")
    if case.answer:
        parts.append(f"<div><b>possible answers:</b> {html.escape(json.dumps(case.answer, ensure_ascii=False))}</div>")
    if committed is not None:
        same = "the same reply" if committed["reply"] == line["reply"] else "a different reply"
        parts.append(f"<div><i>committed run ({committed['dtype']}, batches of {committed['batch_size']}): "
                     f"{'right' if committed['valid'] else 'wrong'}, {same}</i></div>")
    text = "\n".join([f"{case.id} · {line['mode']} · {verdict}", f"reply: {line['reply']}",
                      f"calls: {json.dumps(line['calls'], ensure_ascii=False)}"])
    return HTML("".join(parts), text)


def case_runner(model: Any, committed: dict[str, dict] | None = None) -> w.VBox:
    """Pick a category, a case number and a mode; "Run and grade" runs it live (one case, no batch)."""
    cases = {c.id: c for c in load_cases()}
    category = w.Dropdown(options=list(CATEGORIES), value="parallel", description="category")
    number = w.BoundedIntText(value=0, min=0, max=399, description="case no.")
    mode = w.Dropdown(options=list(MODES), value="native", description="mode")
    button = w.Button(description="Run and grade", button_style="primary")
    out = w.Output()

    def run(_=None) -> None:
        case_id = f"{category.value}_{number.value}"
        out.clear_output()
        with out:
            if case_id not in cases:
                print(f"There is no case {case_id}.")
                return
            case = cases[case_id]
            (line,) = run_cases(model, [case], mode.value, None, batch_size=1, progress=False)
            display(case_html(case, line, (committed or {}).get(case_id) if mode.value == "native" else None))

    button.on_click(run)
    box = w.VBox([w.HBox([category, number, mode, button]), out])
    box.add_class("kitchen-bfcl-runner")
    return box

