"""The server behind chapter 09, driven by the official `openai` and `anthropic` SDKs, unmodified,
on scripted replies (no model): the two-call tool loop, streaming and not; ids; errors; a client
that goes away mid-stream."""

from __future__ import annotations

import json
import threading
import time

import anthropic
import httpx
import openai
import pytest

from kitchen.harness.api import serve_api
from kitchen.model.replies import Detokenizer, Generation, Token
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator
from kitchen.tools.schemas import as_schema

TOOLS = [as_schema(calculator)]
ANTHROPIC_TOOLS = [{"name": "calculator", "description": "Evaluate an arithmetic expression.",
                    "input_schema": TOOLS[0]["function"]["parameters"]}]
QUESTION = "What is 987 × 654?"
CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "987 * 654"}}\n</tool_call>'
TWO_CALLS = CALL + "\n" + CALL.replace("987 * 654", "2 + 2")
ANSWER = "987 × 654 = 645,498."


def run(name: str, arguments: dict) -> str:
    assert name == "calculator"
    return calculator(**arguments)


def openai_loop(url: str, stream: bool) -> tuple[str, list[dict]]:
    """The agent loop against the OpenAI SDK: call, run each tool_call, answer by id, call again."""
    client = openai.OpenAI(base_url=url + "/v1", api_key="not-needed")
    messages: list[dict] = [{"role": "user", "content": QUESTION}]
    for _ in range(4):
        if stream:
            message, finish = glue_openai(client.chat.completions.create(
                model="local", messages=messages, tools=TOOLS, stream=True))
        else:
            choice = client.chat.completions.create(model="local", messages=messages, tools=TOOLS).choices[0]
            message, finish = choice.message.model_dump(exclude_none=True), choice.finish_reason
        messages.append(message)
        if finish != "tool_calls":
            return message["content"], messages
        for call in message["tool_calls"]:
            result = run(call["function"]["name"], json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    raise AssertionError("the loop did not end")


def glue_openai(chunks) -> tuple[dict, str]:
    """The message a stream makes: text pieces joined, each call's fragments glued by index."""
    content, calls, finish = "", {}, None
    for chunk in chunks:
        delta = chunk.choices[0].delta
        content += delta.content or ""
        for piece in delta.tool_calls or []:
            call = calls.setdefault(piece.index, {"id": piece.id, "type": "function",
                                                  "function": {"name": piece.function.name, "arguments": ""}})
            call["function"]["arguments"] += piece.function.arguments or ""
        finish = chunk.choices[0].finish_reason or finish
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message, finish


def anthropic_loop(url: str, stream: bool) -> tuple[str, list[dict]]:
    client = anthropic.Anthropic(base_url=url, api_key="not-needed")
    messages: list[dict] = [{"role": "user", "content": QUESTION}]
    for _ in range(4):
        kw = dict(model="local", max_tokens=256, messages=messages, tools=ANTHROPIC_TOOLS)
        if stream:
            with client.messages.stream(**kw) as events:
                reply = events.get_final_message()
        else:
            reply = client.messages.create(**kw)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]})
        if reply.stop_reason != "tool_use":
            return "".join(b.text for b in reply.content if b.type == "text"), messages
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": run(b.name, b.input)}
            for b in reply.content if b.type == "tool_use"]})
    raise AssertionError("the loop did not end")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("loop", [openai_loop, anthropic_loop], ids=["openai", "anthropic"])
def test_both_sdks_complete_a_two_call_tool_loop(loop, stream):
    with serve_api(ScriptedModel([TWO_CALLS, ANSWER])) as api:
        answer, messages = loop(api.url, stream)
        first, second = api.turns
    assert answer == ANSWER
    assert first.finish == "tool_calls" and len(first.calls) == 2
    # Both results reached the model, in the order of its calls.
    assert second.prompt.index("<tool_response>\n645498\n") < second.prompt.index("<tool_response>\n4\n")
    ids = [c.id for c in first.calls]
    assert len(set(ids)) == 2
    assert json.dumps(messages).count(ids[0]) == 2  # in the call, and in the result that answers it


def test_results_sent_out_of_order_reach_the_model_in_the_order_of_the_calls():
    with serve_api(ScriptedModel([TWO_CALLS, ANSWER])) as api:
        client = openai.OpenAI(base_url=api.url + "/v1", api_key="x")
        messages = [{"role": "user", "content": QUESTION}]
        message = client.chat.completions.create(model="m", messages=messages, tools=TOOLS).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        for call, result in reversed(list(zip(message.tool_calls, ["645498", "4"]))):
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
        prompt = api.last_turn.prompt
    assert prompt.index("645498") < prompt.index("<tool_response>\n4\n")


def test_streamed_fragments_glue_to_the_arguments_of_the_whole_reply():
    with serve_api(ScriptedModel([TWO_CALLS, TWO_CALLS])) as api:
        client = openai.OpenAI(base_url=api.url + "/v1", api_key="x")
        ask = dict(model="m", messages=[{"role": "user", "content": QUESTION}], tools=TOOLS)
        whole = client.chat.completions.create(**ask).choices[0].message.tool_calls
        chunks = list(client.chat.completions.create(**ask, stream=True))
    glued, _ = glue_openai(chunks)
    assert [c["function"]["arguments"] for c in glued["tool_calls"]] == [c.function.arguments for c in whole]
    fragments = [p for c in chunks for p in c.choices[0].delta.tool_calls or [] if p.id is None]
    assert len(fragments) > 2  # the arguments came in pieces, not whole
    assert {c.id for c in whole}.isdisjoint(c["id"] for c in glued["tool_calls"])  # every reply, new ids


def test_an_unreadable_call_comes_back_as_plain_text_never_as_a_call():
    broken = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "987 * 654"\n</tool_call>'
    with serve_api(ScriptedModel([broken, broken])) as api:
        reply = openai.OpenAI(base_url=api.url + "/v1", api_key="x").chat.completions.create(
            model="m", messages=[{"role": "user", "content": QUESTION}], tools=TOOLS)
        message = anthropic.Anthropic(base_url=api.url, api_key="x").messages.create(
            model="m", max_tokens=100, messages=[{"role": "user", "content": QUESTION}], tools=ANTHROPIC_TOOLS)
    assert reply.choices[0].finish_reason == "stop" and not reply.choices[0].message.tool_calls
    assert reply.choices[0].message.content == broken
    assert message.stop_reason == "end_turn" and [b.type for b in message.content] == ["text"]


BAD_OPENAI = {
    "unknown tool named": dict(tool_choice={"type": "function", "function": {"name": "weather"}}),
    "malformed schema": dict(tools=[{"type": "function", "function": {
        "name": "calculator", "parameters": {"type": "object", "properties": {"x": {"type": "nonsense"}}}}}]),
    "bad id in a result": dict(messages=[
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                                              "function": {"name": "calculator", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_2", "content": "1"}]),
    "a call left unanswered": dict(messages=[
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                                              "function": {"name": "calculator", "arguments": "{}"}}]},
        {"role": "user", "content": "and?"}]),
}


@pytest.mark.parametrize("case", BAD_OPENAI)
def test_a_bad_openai_request_is_a_400_in_the_apis_error_shape(case):
    ask = {"model": "m", "messages": [{"role": "user", "content": QUESTION}], "tools": TOOLS, **BAD_OPENAI[case]}
    with serve_api(ScriptedModel([CALL])) as api:
        with pytest.raises(openai.BadRequestError) as err:
            openai.OpenAI(base_url=api.url + "/v1", api_key="x", max_retries=0).chat.completions.create(**ask)
        assert api.turns == []
    assert err.value.status_code == 400 and err.value.body["type"] == "invalid_request_error"
    assert err.value.body["message"]


def test_a_bad_anthropic_request_is_a_400_in_the_apis_error_shape():
    with serve_api(ScriptedModel([CALL])) as api:
        client = anthropic.Anthropic(base_url=api.url, api_key="x", max_retries=0)
        with pytest.raises(anthropic.BadRequestError) as err:
            client.messages.create(model="m", max_tokens=50, tools=ANTHROPIC_TOOLS, messages=[
                {"role": "user", "content": QUESTION},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "calculator",
                                                   "input": {"expression": "1"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "1"}]}])
        assert "toolu_9" in str(err.value)
        response = httpx.post(api.url + "/v1/messages", content=b"{not json")
    assert response.status_code == 400 and response.json()["type"] == "error"


class SlowModel(ScriptedModel):
    """A scripted reply handed out one token every 50 ms, as a live model would; counts what it wrote."""

    written = 0

    def stream(self, messages, tools=None, **kw):
        whole = super().stream(messages, tools, **kw).run()
        model = self

        class Slow:
            result = None

            def __iter__(self):
                for token in whole.tokens:
                    time.sleep(0.05)
                    model.written += 1
                    yield token
                self.result = whole

            def run(self) -> Generation:
                for _ in self:
                    pass
                return whole
        return Slow()


def test_a_client_that_goes_away_mid_stream_leaves_the_server_serving():
    long_reply = " ".join(["word"] * 200)
    model = SlowModel([long_reply, "Still here."])
    with serve_api(model) as api:
        with httpx.stream("POST", api.url + "/v1/chat/completions", json={
                "model": "m", "messages": [{"role": "user", "content": "talk"}], "stream": True}) as response:
            lines = response.iter_lines()
            first = [next(lines) for _ in range(4)]
        assert first[0].startswith("data: ")
        reply = openai.OpenAI(base_url=api.url + "/v1", api_key="x").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "again"}])
        written = model.written  # the second reply waited for the model: the first had let go of it
    assert reply.choices[0].message.content == "Still here."
    assert written < 100  # the first reply stopped when its client left, long before its 200 words
