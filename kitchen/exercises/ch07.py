"""Chapter 07's exercises: a grammar that holds a calculator call to arithmetic only, and what
each `tool_choice` lets the model write.

>>> check_tool_choice({"none": "text", "auto": "either", "required": "call"}).status
'right'
"""

from __future__ import annotations

import json
from typing import Any

from kitchen.grammar.mask import Constraint
from kitchen.grammar.calls import GrammarError
from kitchen.model.tokenizer import offline_tokenizer
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

OPEN, CLOSE = "<tool_call>", "</tool_call>"
CHOICES = {"none": "text", "auto": "either", "required": "call"}
ANSWERS = ("text", "call", "either")


def call_text(name: str, expression: str) -> str:
    return f'{OPEN}\n{json.dumps({"name": name, "arguments": {"expression": expression}})}\n{CLOSE}'


# (reply, should the grammar allow it, what it is)
SAMPLES = [
    (call_text("calculator", "12 * 34"), True, "a call on 12 * 34"),
    (call_text("calculator", "987*654"), True, "a call without spaces"),
    (call_text("calculator", "1000 / 8"), True, "a division"),
    (call_text("calculator", "(1 + 2) / 3"), False, "a call with brackets"),
    (call_text("calculator", "1 + 2 + 3"), False, "a call on three numbers"),
    (call_text("calculator", "sqrt(2)"), False, "a call with letters in the expression"),
    (call_text("calculator", "2; import os"), False, "a call that smuggles code after a semicolon"),
    (call_text("search_rhymes", "12 * 34"), False, "a call to another tool"),
    ("The answer is 408.", False, "a plain-text answer"),
    (call_text("calculator", "12 * 34").replace(CLOSE, ""), False, "a call never closed"),
]


def allows(grammar: str, text: str) -> bool:
    """True when `grammar` lets a reply be exactly `text` and then end (token by token, as in
    generation, with the Qwen tokenizer)."""
    tok = offline_tokenizer("0.5b")
    constraint = Constraint.for_tokenizer(tok, grammar)
    for token_id in tok(text, add_special_tokens=False)["input_ids"]:
        if not bool(constraint.allowed()[token_id]):
            return False
        constraint.consume(token_id)
    return bool(constraint.allowed()[constraint.eos])


def check_grammar(grammar: Any) -> Feedback:
    """A Lark grammar (chapter 07's syntax) whose replies can only be one calculator call in
    Qwen's tags, its expression two whole numbers with one of + - * / between them (spaces
    around the operator allowed): stricter than the chapter's `tiny_grammar`."""
    ex = "07.grammar"
    if blank(grammar):
        return not_done(ex, "`my_grammar`")
    if not isinstance(grammar, str):
        return wrong(ex, "a grammar is text: write it as a (raw) string.")
    try:
        verdicts = [(what, should, allows(grammar, text)) for text, should, what in SAMPLES]
    except GrammarError as err:
        return wrong(ex, str(err), "Start from the chapter's tiny_grammar and change its EXPR rule.")
    off = [(what, should) for what, should, got in verdicts if got != should]
    if not off:
        return right(ex, f"it allows the {sum(s for _, s, _ in SAMPLES)} arithmetic calls and holds back the "
                         f"{sum(not s for _, s, _ in SAMPLES)} other replies.")
    lines = [f"{what}: it {'holds it back' if should else 'lets it through'}" for what, should in off]
    return wrong(ex, f"{len(SAMPLES) - len(off)} of {len(SAMPLES)} replies handled.\n  " + "\n  ".join(lines),
                 "Start from the chapter's tiny_grammar: its EXPR allows any mix of the characters; write one "
                 "that says number, operator, number (a rule can be a sequence of smaller rules).")


def check_tool_choice(answers: Any) -> Feedback:
    """For each `tool_choice` ("none", "auto", "required"), what the grammar lets the model
    write: "text", "call" or "either"."""
    ex = "07.tool_choice"
    if blank(answers) or (isinstance(answers, dict) and any(blank(a) for a in answers.values())):
        return not_done(ex, "each `...` in `my_answers`")
    if not isinstance(answers, dict) or set(answers) != set(CHOICES) or any(a not in ANSWERS for a in answers.values()):
        return wrong(ex, f'give a dict with the keys {list(CHOICES)}, each one of {list(ANSWERS)}.')
    off = [c for c in CHOICES if answers[c] != CHOICES[c]]
    if not off:
        return right(ex, '"none" rules the tags out, "auto" lets the model choose, "required" allows nothing but a call.')
    why = {"none": "with \"none\" the model is still free to write any text",
           "auto": "\"auto\" decides nothing for the model",
           "required": "with \"required\" the first token already has to open a call"}
    return wrong(ex, "; ".join(f"not {answers[c]!r} for {c!r}" for c in off) + ".",
                 why[off[0]] + ": look at what the chapter's grammar for it allows first.")
