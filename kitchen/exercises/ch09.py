"""Chapter 09's exercises: write the agent loop against the `openai` SDK, glue a stream's argument
fragments, and write one call in the other two APIs' shapes.

The first two run the learner's code against the chapter's own server over *scripted* replies (the
check says so): the point is the loop and the glue, and a script can also play a model that never
stops calling tools.

>>> check_shapes(...).status
'not done'
"""

from __future__ import annotations

import json
from typing import Any, Callable

import openai

from kitchen.exercises.core import Feedback, blank, not_done, right, wrong
from kitchen.harness.api.app import serve_api
from kitchen.harness.api.converse_shape import shapes
from kitchen.harness.api.turns import ApiCall, ApiTurn
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator
from kitchen.tools.schemas import as_schema

QUESTION = "What is 987 × 654, and what is 12 × 12?"
TWO_CALLS = ('<tool_call>\n{"name": "calculator", "arguments": {"expression": "987 * 654"}}\n</tool_call>\n'
             '<tool_call>\n{"name": "calculator", "arguments": {"expression": "12 * 12"}}\n</tool_call>')
ANSWER = "987 × 654 = 645,498 and 12 × 12 = 144."
FOREVER = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "1 + 1"}}\n</tool_call>'
TOOLS = [as_schema(calculator)]
MAX_REQUESTS = 8  # a loop that asks more often than this has no cap worth the name
OPENAI_CALL = {"id": "call_7f3a", "type": "function",
               "function": {"name": "search_rhymes", "arguments": '{"query": "sheep"}'}}


def check_sdk_loop(my_loop: Any) -> Feedback:
    """`my_loop(client, question) -> str`: the tool loop against an `openai.OpenAI` client."""
    ex = "09.sdk_loop"
    if blank(my_loop):
        return not_done(ex, "`my_loop`")
    if not callable(my_loop):
        return wrong(ex, "my_loop must be a function: def my_loop(client, question): ...")
    with serve_api(ScriptedModel([TWO_CALLS, ANSWER])) as api:
        answer, error = _run(my_loop, api.url)
        turns = list(api.turns)
    if error:
        return wrong(ex, f"your loop stopped with {error}", "Append the assistant message, then one tool message "
                         "per call, with the call's id as tool_call_id.")
    if len(turns) < 2:
        return wrong(ex, "your loop asked the model once; the reply was two calls, not an answer.",
                     "Loop while finish_reason is 'tool_calls'.")
    if answer != ANSWER:
        return wrong(ex, f"your loop returned {answer!r}, not the model's final text.",
                     "Return message.content once finish_reason is not 'tool_calls'.")
    with serve_api(ScriptedModel([FOREVER] * (MAX_REQUESTS + 5))) as api:
        _, error = _run(my_loop, api.url)
        asked = len(api.turns)
    if error or asked > MAX_REQUESTS:
        return wrong(ex, "against a model that asks for a tool every time, your loop "
                         + (f"stopped with {error}" if error else f"asked {asked} times"),
                     "Cap the loop (at 8 requests) and return a message when it is reached.")
    return right(ex, f"both results went back by id, the model answered, and against a model that never stops "
                     f"calling your loop stopped after {asked} requests.")


def _run(my_loop: Callable, url: str) -> tuple[Any, str]:
    client = openai.OpenAI(base_url=url + "/v1", api_key="not-needed", max_retries=0)
    try:
        return my_loop(client, QUESTION), ""
    except openai.BadRequestError as err:
        return None, f"the server's 400: {err.body.get('message') if isinstance(err.body, dict) else err}"
    except Exception as err:  # the learner's code: any error is feedback, not a crash
        return None, f"{type(err).__name__}: {err}"


def check_glue(my_glue: Any) -> Feedback:
    """`my_glue(chunks) -> list[dict]`: each call of a stream as {"id", "name", "arguments": dict}."""
    ex = "09.glue"
    if blank(my_glue):
        return not_done(ex, "`my_glue`")
    with serve_api(ScriptedModel([TWO_CALLS])) as api:
        client = openai.OpenAI(base_url=api.url + "/v1", api_key="not-needed", max_retries=0)
        chunks = list(client.chat.completions.create(model="local", messages=[{"role": "user", "content": QUESTION}],
                                                     tools=TOOLS, stream=True))
        truth = [{"id": c.id, "name": c.name, "arguments": c.input} for c in api.last_turn.calls]
    try:
        glued = my_glue(iter(chunks))
    except Exception as err:
        return wrong(ex, f"your function stopped with {type(err).__name__}: {err}",
                     "A fragment is not JSON on its own: join a call's fragments first, json.loads once at the end.")
    if not isinstance(glued, list) or not all(isinstance(c, dict) for c in glued):
        return wrong(ex, "return a list of dicts, one per call.")
    if glued != truth:
        return wrong(ex, f"you glued {glued}; the stream held {len(truth)} calls.",
                     "Key the calls by delta.tool_calls[i].index; only the first piece of a call has its id and name.")
    return right(ex, f"{sum(len(c.choices[0].delta.tool_calls or []) for c in chunks if c.choices)} pieces glued "
                     f"into {len(truth)} calls, each parsed once, when complete.")


def check_shapes(my_blocks: Any) -> Feedback:
    """{"anthropic": a tool_use block, "converse": a toolUse block} for `OPENAI_CALL`."""
    ex = "09.shapes"
    if blank(my_blocks) or (isinstance(my_blocks, dict) and any(blank(v) for v in my_blocks.values())):
        return not_done(ex, "`my_blocks`")
    function = OPENAI_CALL["function"]
    turn = ApiTurn("", "", "", [ApiCall(OPENAI_CALL["id"], function["name"], function["arguments"], [])], "tool_calls", 0, 0)
    table = shapes(turn)
    truth = {"anthropic": table["Anthropic Messages"]["content"][0], "converse": table["Bedrock Converse"]["content"][0]}
    if not isinstance(my_blocks, dict) or set(my_blocks) != set(truth):
        return wrong(ex, "give a dict with two keys, 'anthropic' and 'converse'.")
    for api, block in my_blocks.items():
        if block == truth[api]:
            continue
        text = json.dumps(block, default=str)
        if function["arguments"].replace('"', '\\"') in text:
            return wrong(ex, f"your {api} block holds the arguments as a string.",
                         "OpenAI sends arguments as JSON text; the other two send an object: json.loads it.")
        return wrong(ex, f"your {api} block is {block}; it does not match that API's shape.",
                     "Anthropic: type, id, name, input. Converse: a 'toolUse' key holding toolUseId, name, input.")
    return right(ex, "one call, three shapes: the name and id carried over, and the arguments turned from JSON "
                     "text into an object.")

