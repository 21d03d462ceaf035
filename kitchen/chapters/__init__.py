"""Each chapter's own pieces: what one chapter needs and no other.

- `arithmetic` (01): checking a model's long multiplication row by row.
- `descriptions` (02): the experiment on tool descriptions.
- `tasks` (03): tasks for the toy tools, and grading a run against them.
- `lab` and `sweep` (06): the tools off / tools on comparisons and the digits sweep.
- `experiments`: the results files the experiment scripts write.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.chapters.arithmetic": ["check_work", "departure", "find_answer"],
    "kitchen.chapters.descriptions": ["DESCRIPTION_RESULTS", "EXAMPLE_PARAMETERS", "count_words_schema", "description_tasks", "summarize_descriptions", "variant_schemas"],
    "kitchen.chapters.tasks": ["grade", "load_tasks"],
    "kitchen.chapters.lab": ["answer_line", "available_sources", "compare"],
    "kitchen.chapters.sweep": ["make_problems", "run_off", "run_on", "summarize_sweep"],
    "kitchen.chapters.experiments": ["tool_choice_table"],
})
