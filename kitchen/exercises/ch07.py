"""Chapter 07's exercises: a grammar that holds a calculator call to arithmetic only, and what
each `tool_choice` grammar does with the `<tool_call>` token at a reply's first step.

>>> check_tool_choice({"none": "masked", "auto": "allowed", "required": "forced", FENCED: True}).status
'right'
"""

from __future__ import annotations

import functools
import json
from typing import Any

from kitchen.grammar.mask import Constraint
from kitchen.grammar.calls import CALL_OPEN, GrammarError, call_grammar
from kitchen.model.tokenizer import offline_tokenizer
from kitchen.tools import TOY_TOOLS
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

OPEN, CLOSE = "<tool_call>", "</tool_call>"
SETTINGS = ("none", "auto", "required")
TAG_RULES = ("masked", "allowed", "forced")  # what a grammar does with <tool_call> at the first step
FENCED = "fenced JSON under none"
# The 0.5B pack's first reply to 987 × 654 under tool_choice="none" in chapter 07's run (claim 07.none_writes_no_call).
FENCED_CALL = '```json\n{\n  "name": "calculator",\n  "arguments": {\n    "expression": "987 * 654"\n  }\n}\n```'


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


@functools.lru_cache(maxsize=None)
def tag_rules() -> dict[str, Any]:
    """For each setting, what `call_grammar(TOY_TOOLS, setting)` does with the `<tool_call>` token at
    a reply's first step ("masked", "allowed" or "forced": the only token allowed); and under
    `FENCED`, whether the "none" grammar lets a reply be a call's JSON in a ```json fence."""
    rules: dict[str, Any] = {}
    for setting in SETTINGS:
        allowed = Constraint.for_tokenizer(offline_tokenizer("0.5b"), call_grammar(TOY_TOOLS, setting)).allowed()
        rules[setting] = "masked" if not allowed[CALL_OPEN] else "forced" if int(allowed.sum()) == 1 else "allowed"
    rules[FENCED] = allows(call_grammar(TOY_TOOLS, "none"), FENCED_CALL)
    return rules


def check_tool_choice(answers: Any) -> Feedback:
    """For each `tool_choice` ("none", "auto", "required"), what its grammar does with the
    `<tool_call>` token at the reply's first step: "masked", "allowed" or "forced"; and under
    `FENCED`, True or False: can the model still write a call's JSON as text under "none"?"""
    ex = "07.tool_choice"
    if blank(answers) or (isinstance(answers, dict) and any(blank(a) for a in answers.values())):
        return not_done(ex, "`my_answers`")
    keys = [*SETTINGS, FENCED]
    if not isinstance(answers, dict) or set(answers) != set(keys) or \
            any(answers[s] not in TAG_RULES for s in SETTINGS) or not isinstance(answers[FENCED], bool):
        return wrong(ex, f"give a dict with the keys {keys}: each setting one of {list(TAG_RULES)}, and "
                         f"{FENCED!r} True or False.")
    truth = tag_rules()
    off = [k for k in keys if answers[k] != truth[k]]
    if not off:
        said = {"masked": "masks the tag", "allowed": "allows it among other tokens", "forced": "allows nothing else"}
        fenced = ("only the tag is out of reach: a ```json fence is still text the model may write, and the harness "
                  "runs none of it" if truth[FENCED] else "no call's JSON can be written at all")
        return right(ex, "at the first step " + ", ".join(f'"{s}" {said[truth[s]]}' for s in SETTINGS)
                     + f'. Under "none" {fenced}.')
    look = {"none": 'Print call_grammar(TOY_TOOLS, "none"): its text is a regular expression. Can text ever be a '
                    "special token?",
            "auto": 'Under "auto" a reply may open a call three ways, or be text: is the tag one of the openings, '
                    "and is it the only one?",
            "required": 'Under "required" the reply is a call in tags: what can its very first token be?',
            FENCED: 'Look again at the chapter\'s run under "none": what did the 0.5B write, and what did the grammar '
                    "hold back?"}
    return wrong(ex, "; ".join(f"not {answers[k]!r} for {k!r}" for k in off) + ".",
                 look[off[0]] + " Build the mask with Constraint.for_tokenizer(model.tok, grammar).allowed() to see.")
