"""The checks behind each chapter's "Your turn" exercises, and the self-check quiz.

A learner does the task in a code cell, then calls the chapter's `check_…` function on what they
made. The check answers with a `Feedback`: right, or what is wrong with a hint, and never the
solution. Left as the notebook ships it (`...`), a check says "not done yet" without an error.

One module per chapter (`ch01` … `ch09`); `core` holds `Feedback`; `quiz` is the self-check at
the end of each chapter, its questions in `questions`.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.exercises.core": ["Feedback"],
    "kitchen.exercises.quiz": ["self_check"],
    "kitchen.exercises.ch01": ["check_digit_tokens", "check_first_wrong_row", "check_partial_rows"],
    "kitchen.exercises.ch02": ["check_call_text", "check_enum_tool", "check_tool_cost"],
    "kitchen.exercises.ch03": ["check_cap", "check_loop"],
    "kitchen.exercises.ch04": ["check_call_tag_parser", "check_call_tag_text"],
    "kitchen.exercises.ch05": ["check_error_kinds", "check_tools_call_frame"],
    "kitchen.exercises.ch06": ["check_grades", "check_prediction", "replies_to_grade"],
    "kitchen.exercises.ch07": ["check_grammar", "check_tool_choice"],
    "kitchen.exercises.ch08": ["CANDIDATES", "check_overlap", "check_verdicts", "triangle_case"],
    "kitchen.exercises.ch09": ["check_glue", "check_sdk_loop", "check_shapes"],
})
