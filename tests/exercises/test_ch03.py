"""Chapter 03's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: the harness loop, the tool message.
"""

from __future__ import annotations

import json

import kitchen.exercises.ch03 as ch03
from kitchen.harness.parsing import parse_tool_calls
from kitchen.tools.schemas import tool_schema

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch03.check_loop(...),
               ch03.check_tool_message(...)]
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


def test_tool_message():
    assert ch03.check_tool_message({"role": "tool", "content": "408"}).right
    assert "as if the user said it" in ch03.check_tool_message({"role": "user", "content": "408"}).message
    assert "the template knows no role 'function'" in ch03.check_tool_message({"role": "function", "content": "408"}).message
    assert "carry the result" in ch03.check_tool_message({"role": "tool", "content": "done"}).message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("03")
