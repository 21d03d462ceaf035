"""Chapter 09's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: the agent loop against the `openai` SDK, gluing a stream, one call in three shapes.
The first two run against chapter 09's server over scripted replies (no model).
"""

from __future__ import annotations

import json

import kitchen.exercises.ch09 as ch09
from kitchen.tools import calculator, tool_schema

from notebook_exercises import check_ships_not_done_and_solved

TOOLS = [tool_schema(calculator)]


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch09.check_sdk_loop(...), ch09.check_glue(...),
               ch09.check_shapes({"anthropic": ..., "converse": ...})]
    assert all(f.status == "not done" for f in shipped)


def loop(cap: int | None, answer_by_id: bool = True):
    def my_loop(client, question):
        messages = [{"role": "user", "content": question}]
        step = 0
        while cap is None or step < cap:
            step += 1
            choice = client.chat.completions.create(model="m", messages=messages, tools=TOOLS).choices[0]
            messages.append(choice.message.model_dump(exclude_none=True))
            if choice.finish_reason != "tool_calls":
                return choice.message.content
            for n, call in enumerate(choice.message.tool_calls):
                messages.append({"role": "tool", "tool_call_id": call.id if answer_by_id else f"call_{n}",
                                 "content": calculator(**json.loads(call.function.arguments))})
        return "stopped"
    return my_loop


def test_the_loop_check_wants_ids_an_answer_and_a_cap():
    assert ch09.check_sdk_loop(loop(8)).right
    uncapped = ch09.check_sdk_loop(loop(None))
    assert uncapped.status == "wrong" and "asked 14 times" in uncapped.message  # 13 scripted calls, then the end of the script
    by_order = ch09.check_sdk_loop(loop(8, answer_by_id=False))
    assert "the server's 400" in by_order.message and "tool_call_id" in by_order.hint
    once = ch09.check_sdk_loop(lambda client, question: client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": question}], tools=TOOLS).choices[0].message.content)
    assert "asked the model once" in once.message
    assert "my_loop must be a function" in ch09.check_sdk_loop("loop").message


def test_the_glue_check_wants_each_call_parsed_once_it_is_whole():
    def parse_each_piece(chunks):
        return [json.loads(p.function.arguments) for c in chunks for p in c.choices[0].delta.tool_calls or []]
    assert "JSONDecodeError" in ch09.check_glue(parse_each_piece).message

    def first_call_only(chunks):
        text, head = "", None
        for chunk in chunks:
            for piece in chunk.choices[0].delta.tool_calls or []:
                if piece.index == 0:
                    head = head or {"id": piece.id, "name": piece.function.name}
                    text += piece.function.arguments or ""
        return [{**head, "arguments": json.loads(text)}]
    assert "the stream held 2 calls" in ch09.check_glue(first_call_only).message


def test_the_shapes_check_names_a_string_where_an_object_belongs():
    right = {"anthropic": {"type": "tool_use", "id": "call_7f3a", "name": "search_rhymes", "input": {"query": "sheep"}},
             "converse": {"toolUse": {"toolUseId": "call_7f3a", "name": "search_rhymes", "input": {"query": "sheep"}}}}
    assert ch09.check_shapes(right).right
    as_string = {**right, "anthropic": {**right["anthropic"], "input": '{"query": "sheep"}'}}
    assert "holds the arguments as a string" in ch09.check_shapes(as_string).message
    renamed = {**right, "converse": {"toolUse": {"id": "call_7f3a", "name": "search_rhymes", "input": {"query": "sheep"}}}}
    assert "converse block" in ch09.check_shapes(renamed).message
    assert "two keys" in ch09.check_shapes({"openai": {}}).message


def test_the_notebooks_exercises_ship_not_done_and_their_solutions_pass():
    check_ships_not_done_and_solved("09")
