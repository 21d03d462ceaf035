"""Chapter 03's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: the harness loop, what the cap does to a model that never stops calling.
"""

from __future__ import annotations

import json

import kitchen.exercises.ch03 as ch03
from kitchen.harness.parsing import parse_tool_calls
from kitchen.tools.schemas import tool_schema

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch03.check_loop(...),
               ch03.check_cap(...),
               ch03.check_cap({"model calls": ..., "tool runs": ...})]
    assert all(f.status == "not done" for f in shipped)


def good_loop(model, question, tools, max_steps=5):
    """The chapter's loop, as a learner would type it."""
    schemas = [tool_schema(f) for f in tools]
    by_name = {f.__name__: f for f in tools}
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = model.generate(messages, schemas, stop=["</tool_call>"])
        parsed = parse_tool_calls(reply.text, tools=schemas)
        if not parsed.found:
            return reply.text
        messages.append({"role": "assistant", "content": reply.text})
        for call in parsed.calls:
            if call.name not in by_name:
                result = f"Error: there is no tool {call.name!r}"
            else:
                try:
                    result = json.dumps(by_name[call.name](**call.arguments))
                except Exception as err:
                    result = f"Error: {type(err).__name__}: {err}"
            messages.append({"role": "tool", "content": result})
        for error in parsed.errors:
            messages.append({"role": "tool", "content": f"Error: {error.message}"})
    return "(gave up)"


def trusting_loop(model, question, tools, max_steps=5):
    """No cap, no error handling: every tool exists, every call is well formed."""
    by_name = {f.__name__: f for f in tools}
    messages = [{"role": "user", "content": question}]
    while True:
        reply = model.generate(messages, tools, stop=["</tool_call>"])
        parsed = parse_tool_calls(reply.text, tools=tools)
        if not parsed.calls:
            return reply.text
        messages.append({"role": "assistant", "content": reply.text})
        for call in parsed.calls:
            messages.append({"role": "tool", "content": json.dumps(by_name[call.name](**call.arguments))})


def test_loop():
    assert ch03.check_loop(good_loop).right
    trusting = ch03.check_loop(trusting_loop)
    assert trusting.status == "wrong"
    assert "an unknown tool: it raised KeyError" in trusting.message
    assert "the cap: the model was called 13 times with max_steps=3" in trusting.message
    assert "a tool that raises: it raised ZeroDivisionError" in trusting.message
    forgetful = ch03.check_loop(lambda model, question, tools, max_steps: "I did not ask the model.")
    assert "a plain answer: it returned 'I did not ask the model.', not the model's final answer" in forgetful.message


def test_cap_counts_come_from_the_harness():
    assert ch03.cap_counts() == {"model calls": 3, "tool runs": 2}
    assert ch03.cap_counts(1) == {"model calls": 1, "tool runs": 0}
    assert ch03.cap_counts(5) == {"model calls": 5, "tool runs": 4}


def test_cap():
    right = ch03.check_cap({"model calls": 3, "tool runs": 2})
    assert right.right and "the call in reply 3 never runs" in right.message
    every_call = ch03.check_cap({"model calls": 3, "tool runs": 3})
    assert every_call.status == "wrong" and "3 model calls is right" in every_call.message
    assert "not 3 tool runs: not every call the model writes is run" in every_call.message
    assert "left to read its result" in every_call.hint
    assert "2 tool runs is right" not in every_call.message and "2 tool runs" not in every_call.hint


def test_cap_wrong_model_calls():
    over = ch03.check_cap({"model calls": 4, "tool runs": 2})
    assert "not 4 model calls: max_steps=3 caps the model calls" in over.message
    assert "2 tool runs is right" in over.message and "max_steps counts" in over.hint
    under = ch03.check_cap({"model calls": 1, "tool runs": 2})
    assert "nothing ends the run before the cap" in under.message and "plain answer or the cap" in under.hint


def test_cap_wrong_tool_runs():
    assert "at most once per reply" in ch03.check_cap({"model calls": 3, "tool runs": 4}).message
    too_few = ch03.check_cap({"model calls": 3, "tool runs": 1})
    assert "too few" in too_few.message and "repeated with the same arguments" in too_few.message


def test_cap_rejects_bad_types():
    for bad in [3, [3, 2], {"model calls": 3}, {"model calls": 3, "tool runs": "2"},
                {"model calls": True, "tool runs": 2}, {"calls": 3, "runs": 2}]:
        feedback = ch03.check_cap(bad)
        assert feedback.status == "wrong" and "give a dict with the keys" in feedback.message, bad


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("03")
