"""Chapter 08's views (`kitchen.bfcl.views`): runs beside the paper's rows, one case, a live runner."""

from kitchen.bfcl.data import load_cases
from kitchen.bfcl.runner import run_cases
from kitchen.bfcl.views import case_html, case_runner, families_table, results_table

CASES = load_cases()


def test_the_chapter_views_show_runs_cases_and_a_live_runner(model):
    case = next(c for c in CASES if c.id == "parallel_0")
    line = run_cases(model, [case], "native", None, batch_size=1, max_new_tokens=8, progress=False)[0]
    table = results_table({("0.5b", "native", "int8"): [dict(line, seconds=2.0)]})
    assert "0.5B Coder pack · native · int8 (ours)" in repr(table) and "0.50" in repr(table)
    assert "Qwen2.5-0.5B-Instruct · FC (paper)" in repr(table) and "61.2" in repr(table)
    assert "parallel" in repr(families_table([line]))
    view = case_html(case, line, committed=line)
    assert "BFCL's verdict" in view.html and "the same reply" in view.html
    runner = case_runner(model)
    category, number, mode, button = runner.children[0].children
    category.value, number.value = "irrelevance", 500
    button.click()  # no such case: said, not raised
    assert "kitchen-bfcl-runner" in runner._dom_classes
