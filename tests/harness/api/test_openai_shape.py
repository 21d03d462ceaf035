"""OpenAI's shape: a request read into Qwen's terms, and a turn written back (whole and streamed)."""

from __future__ import annotations

import pytest

from kitchen.harness.api.openai_shape import chunks, read_request, response
from kitchen.harness.api.turns import ApiCall, ApiError, ApiTurn

CALLED = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
    {"id": "call_b", "type": "function", "function": {"name": "f", "arguments": "not json"}}]}


def body(**kw) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": "hi"}], **kw}


def test_arguments_become_objects_and_results_line_up_with_their_calls():
    request = read_request(body(messages=[{"role": "developer", "content": "Be brief."},
                                          {"role": "user", "content": [{"type": "text", "text": "go"}]}, CALLED,
                                          {"role": "tool", "tool_call_id": "call_b", "content": "B"},
                                          {"role": "tool", "tool_call_id": "call_a", "content": "A"}]))
    system, user, assistant, first, second = request.messages
    assert system == {"role": "system", "content": "Be brief."} and user["content"] == "go"
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [{"x": 1}, "not json"]
    assert "id" not in assistant["tool_calls"][0]  # Qwen's template has no ids
    assert (first["content"], second["content"]) == ("A", "B")


@pytest.mark.parametrize("bad, param", [
    (dict(messages=[]), "messages"),
    (dict(tools=[{"type": "function", "function": {"name": "has space"}}]), "tools[0].function.name"),
    (dict(tool_choice="sometimes"), "tool_choice"),
    (dict(max_tokens=0), "max_tokens"),
    (dict(stop=["a", "b", "c", "d", "e"]), "stop"),
    (dict(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]), "messages[0].content"),
    (dict(messages=[{"role": "wizard", "content": "x"}]), "messages[0]"),
    (dict(messages=[{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [
        {"id": "same", "type": "function", "function": {"name": "f"}},
        {"id": "same", "type": "function", "function": {"name": "f"}}]}]), "messages[1].tool_calls"),
])
def test_a_bad_request_names_the_parameter_at_fault(bad, param):
    with pytest.raises(ApiError) as err:
        read_request(body(**bad))
    assert err.value.status == 400 and err.value.param == param


def test_strict_parallel_and_choice_are_read():
    tool = {"type": "function", "function": {"name": "f", "strict": True,
                                             "parameters": {"type": "object", "properties": {}}}}
    request = read_request(body(tools=[tool], parallel_tool_calls=False, stream=True,
                                tool_choice={"type": "function", "function": {"name": "f"}}))
    assert (request.strict, request.parallel, request.stream, request.choice) == (True, False, True, {"name": "f"})


TURN = ApiTurn("p", "raw", "", [ApiCall("call_1", "f", '{"x": 1}', ['{"x"', ': 1}'])], "tool_calls", 7, 3)


def test_a_turn_as_the_response_object():
    reply = response(TURN, "m")
    assert reply["object"] == "chat.completion" and reply["choices"][0]["finish_reason"] == "tool_calls"
    assert reply["choices"][0]["message"]["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]
    assert reply["choices"][0]["message"]["content"] is None
    assert reply["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}


def test_a_streamed_call_sends_its_id_and_name_first_then_the_fragments():
    out = list(chunks(iter([("start", 7), ("done", TURN)]), "m", include_usage=True))
    deltas = [c["choices"][0]["delta"] for c in out if c["choices"]]
    assert deltas[0] == {"role": "assistant", "content": ""}
    assert deltas[1]["tool_calls"][0] == {"index": 0, "id": "call_1", "type": "function",
                                          "function": {"name": "f", "arguments": ""}}
    assert [d["tool_calls"][0]["function"]["arguments"] for d in deltas[2:4]] == ['{"x"', ': 1}']
    assert out[-2]["choices"][0]["finish_reason"] == "tool_calls" and out[-1]["usage"]["total_tokens"] == 10
    assert len({c["id"] for c in out}) == 1
