"""Chapter 07's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: a grammar for calls on two numbers, what each tool_choice's grammar does with the
<tool_call> token.
"""

from __future__ import annotations

import kitchen.exercises.ch07 as ch07

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch07.check_grammar(...),
               ch07.check_tool_choice(...),
               ch07.check_tool_choice({"none": ..., "auto": ..., "required": ..., ch07.FENCED: ...})]
    assert all(f.status == "not done" for f in shipped)


TINY = r"""
start: <[151657]> "\n" "{\"name\": \"calculator\", \"arguments\": {\"expression\": \"" EXPR "\"}}" "\n" <[151658]>
EXPR: /[0-9 +\-*\/().]{1,40}/
"""  # chapter 07's grammar: any mix of the characters
TWO_NUMBERS = TINY.replace(r"/[0-9 +\-*\/().]{1,40}/", r"/[0-9]{1,12} ?[+\-*\/] ?[0-9]{1,12}/")


def test_grammar():
    assert ch07.check_grammar(TWO_NUMBERS).right
    chapter = ch07.check_grammar(TINY)
    assert chapter.status == "wrong" and "a call with brackets: it lets it through" in chapter.message
    assert "a call on three numbers: it lets it through" in chapter.message
    loose = ch07.check_grammar(TINY.replace(r"/[0-9 +\-*\/().]{1,40}/", r'/[^"]{1,40}/'))
    assert loose.status == "wrong" and "a call with letters in the expression: it lets it through" in loose.message
    anything = ch07.check_grammar("start: /(.|\\n)*/")
    assert "a plain-text answer: it lets it through" in anything.message


RULES = {"none": "masked", "auto": "allowed", "required": "forced", "fenced JSON under none": True}


def test_tag_rules_come_from_the_grammars():
    assert ch07.tag_rules() == RULES
    # the chapter's run under "none" wrote this fence; the grammar lets it through, and ends after it
    assert ch07.allows(ch07.call_grammar(ch07.TOY_TOOLS, "none"), ch07.FENCED_CALL)
    assert not ch07.allows(ch07.call_grammar(ch07.TOY_TOOLS, "required"), ch07.FENCED_CALL)


def test_tool_choice():
    right = ch07.check_tool_choice(RULES)
    assert right.right
    assert right.message.startswith('at the first step "none" masks the tag, "auto" allows it among other tokens, '
                                    '"required" allows nothing else.')
    assert ch07.check_tool_choice({**RULES, "auto": ...}).status == "not done"


def test_tool_choice_says_each_wrong_answer():
    old = ch07.check_tool_choice({**RULES, "none": "forced", "auto": "forced"})
    assert old.status == "wrong" and old.message == "not 'forced' for 'none'; not 'forced' for 'auto'."
    assert "regular expression" in old.hint and "Constraint.for_tokenizer" in old.hint
    assert "three ways" in ch07.check_tool_choice({**RULES, "auto": "masked"}).hint
    assert "very first token" in ch07.check_tool_choice({**RULES, "required": "allowed"}).hint
    fence = ch07.check_tool_choice({**RULES, ch07.FENCED: False})
    assert fence.message == "not False for 'fenced JSON under none'." and "chapter's run" in fence.hint


def test_tool_choice_rejects_bad_types():
    for bad in ["masked", {"auto": "allowed"}, {**RULES, "none": "text"}, {**RULES, ch07.FENCED: "yes"},
                {"none": "masked", "auto": "allowed", "required": "forced"}, {**RULES, "named": "forced"}]:
        feedback = ch07.check_tool_choice(bad)
        assert feedback.status == "wrong" and "give a dict with the keys" in feedback.message, bad


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("07")
