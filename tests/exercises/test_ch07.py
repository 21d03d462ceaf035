"""Chapter 07's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: a grammar for calls on two numbers, what each tool_choice allows.
"""

from __future__ import annotations

import kitchen.exercises.ch07 as ch07

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch07.check_grammar(...),
               ch07.check_tool_choice(...)]
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


def test_tool_choice():
    assert ch07.check_tool_choice(ch07.CHOICES).right
    assert ch07.check_tool_choice({"none": "text", "auto": ..., "required": ...}).status == "not done"
    assert "not 'either' for 'none'" in ch07.check_tool_choice({**ch07.CHOICES, "none": "either"}).message
    assert "give a dict" in ch07.check_tool_choice({"auto": "call"}).message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("07")
