"""The Berkeley Function Calling Leaderboard (BFCL), run on the project's own models and parser.

Chapter 08 measures the series' models on a benchmark the field uses. The questions, functions
and possible answers are read from the installed `bfcl-eval` package (`data`), the replies are
graded by BFCL's own AST checker (`grading`), the three ways of asking are in `modes`, and
`runner` runs many cases in batches, writing one JSON line per case as it goes; `results`
reads the committed runs and `views` shows them.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.bfcl.data": ["CATEGORIES", "load_cases", "to_json_schema", "tool_schemas"],
    "kitchen.bfcl.grading": ["BfclGrade", "grade", "ground_truth_calls"],
    "kitchen.bfcl.modes": ["request"],
    "kitchen.bfcl.results": ["RESULTS_DIR", "accuracy", "by_function_count", "committed_runs",
                             "error_families"],
    "kitchen.bfcl.runner": ["read_results", "rerun_first_batch", "run_cases"],
    "kitchen.bfcl.views": ["case_html", "case_runner", "families_table", "results_table"],
})
