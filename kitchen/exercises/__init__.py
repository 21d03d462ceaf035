"""The checks behind each chapter's "Your turn" exercises.

A learner does the task in a code cell, then calls the chapter's `check_…` function on what they
made. The check answers with a `Feedback`: right, or what is wrong with a hint, and never the
solution. Left as the notebook ships it (`...`), a check says "not done yet" without an error.

One module per chapter (`kitchen.exercises.ch01` …); `core` holds `Feedback`.
"""

from .core import Feedback

__all__ = ["Feedback"]
