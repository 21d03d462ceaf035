"""The committed BFCL results: file names, the CI slice, accuracy and error families
(`kitchen.bfcl.results`)."""

from collections import Counter

from kitchen.bfcl.data import CATEGORIES, load_cases
from kitchen.bfcl.grading import IRRELEVANT_CALL
from kitchen.bfcl.results import PAPER, accuracy, error_families, results_path, slice_cases, summary_table

CASES = load_cases()


def test_results_files_slices_and_tables():
    assert results_path("0.5b", "native", "int8").name == "0.5b-native-int8.jsonl"
    sliced = slice_cases(CASES, 20)
    assert len(sliced) == 100 and Counter(c.category for c in sliced) == {c: 20 for c in CATEGORIES}
    lines = [{"category": "simple_python", "valid": True, "error_type": ""},
             {"category": "simple_python", "valid": False, "error_type": "value_error:string"},
             {"category": "irrelevance", "valid": False, "error_type": IRRELEVANT_CALL}]
    assert accuracy(lines) == {"simple_python": 50.0, "irrelevance": 0.0, "overall": 100 / 3}
    assert error_families(lines) == {"wrong value": 1, "call where none was wanted": 1}
    assert PAPER[("0.5b", "FC")]["simple"] == 61.2 and len(PAPER) == 4


def test_the_summary_has_a_row_per_category_run_in_bfcls_order_then_the_overall_one():
    lines = [{"category": "irrelevance", "valid": True}, {"category": "parallel", "valid": True},
             {"category": "parallel", "valid": False}]
    assert summary_table(lines).splitlines() == ["parallel              2   50.0%",
                                                 "irrelevance           1  100.0%",
                                                 "overall               3   66.7%"]
