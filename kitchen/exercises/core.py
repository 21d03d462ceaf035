"""`Feedback`, what every exercise check returns, and the helpers the checks share.

>>> print(Feedback("01.tokens", "wrong", "Your pieces join to '70', not '7006652'.", "Join them to see."))
✗ Not yet (01.tokens): Your pieces join to '70', not '7006652'.
  Hint: Join them to see.
>>> not_done("01.tokens", "pieces").status
'not done'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kitchen.model.scripted import ScriptedModel

Status = Literal["right", "wrong", "not done"]
MARKS = {"right": "✓ Right", "wrong": "✗ Not yet", "not done": "… Not done yet"}


@dataclass
class Feedback:
    """One check's answer: `status`, a `message` in plain sentences and, when wrong, a `hint`."""

    exercise: str
    status: Status
    message: str
    hint: str = ""

    @property
    def right(self) -> bool:
        return self.status == "right"

    def __str__(self) -> str:
        text = f"{MARKS[self.status]} ({self.exercise}): {self.message}"
        return text + (f"\n  Hint: {self.hint}" if self.hint else "")

    __repr__ = __str__  # a notebook cell that ends with a check shows the sentences


def blank(answer: Any) -> bool:
    """True for an answer the learner has not filled in yet (`...` or None)."""
    return answer is ... or answer is None


def not_done(exercise: str, what: str) -> Feedback:
    return Feedback(exercise, "not done", f"replace the `...` of {what} with your answer, then run the cell again.")


def right(exercise: str, message: str) -> Feedback:
    return Feedback(exercise, "right", message)


def wrong(exercise: str, message: str, hint: str = "") -> Feedback:
    return Feedback(exercise, "wrong", message, hint)


def template(tier: str = "0.5b") -> ScriptedModel:
    """A model with no weights whose `render` and `encode` are the tier's chat template and
    tokenizer: what the checks use to look at prompts."""
    return ScriptedModel([], tier=tier)
