"""Chapter 04's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: a call-tag parser, a call written in the call-tag format.
"""

from __future__ import annotations

import re

import kitchen.exercises.ch04 as ch04

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch04.check_call_tag_parser(...),
               ch04.check_call_tag_text(...)]
    assert all(f.status == "not done" for f in shipped)


def test_real_replies_come_from_the_committed_comparison():
    replies = ch04.real_replies()
    assert len(replies) == 10 and any("<call search_rhymes>" in text for text, _ in replies)
    assert all("Qwen2.5-Coder" in where for _, where in replies)


def test_call_tag_parser():
    assert ch04.check_call_tag_parser(ch04.reference_parse).right

    def greedy(text):
        return [(m.group(1), m.group(2)) for m in re.finditer(r"<call (\w+)>(.*)</call>", text)]

    result = ch04.check_call_tag_parser(greedy)
    assert result.status == "wrong"
    assert "two calls in one reply: expected [('calculator', '1 + 1'), ('calculator', '2 + 2')]" in result.message
    assert "an input on its own lines: expected [('calculator', '12 * 3')], got []" in result.message

    def naive(text):
        return [(text.split("<call ")[1].split(">")[0], text.split(">")[1].split("</call")[0])]

    assert "an empty reply: it raised IndexError" in ch04.check_call_tag_parser(naive).message


def test_call_tag_parser_flags_a_parser_that_stalls():
    def backtracking(text):
        return [(m.group(1), m.group(2).strip())
                for m in re.finditer(r"<call\s+([A-Za-z_][\w-]*)\s*>(.*?)</call>", text, re.DOTALL)]

    result = ch04.check_call_tag_parser(backtracking)
    assert result.status == "wrong" and "3,000 opening tags and no end: it took" in result.message


def test_call_tag_text():
    assert ch04.check_call_tag_text('<call search_rhymes>{"query": "star", "limit": 1}</call>').right
    assert "the limit is left out" in ch04.check_call_tag_text("<call search_rhymes>star</call>").message
    assert "as a python call" in ch04.check_call_tag_text('search_rhymes("star")').message
    assert "finds no call" in ch04.check_call_tag_text("Search the rhymes for star, please.").message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("04")
