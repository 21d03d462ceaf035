"""The Berkeley Function Calling Leaderboard (BFCL), run on the project's own models and parser.

Chapter 08 measures the series' models on a benchmark the field uses. The questions, functions
and possible answers are read from the installed `bfcl-eval` package (`data`), the replies are
graded by BFCL's own AST checker (`grading`), the three ways of asking are in `modes`, and
`runner` runs many cases in batches, writing one JSON line per case as it goes.
"""
