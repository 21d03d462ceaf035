"""Anthropic's shape: tool_use and tool_result blocks read into Qwen's terms, a turn written back."""

from __future__ import annotations

import pytest

from kitchen.harness.api.anthropic_shape import events, read_request, response
from kitchen.harness.api.turns import ApiCall, ApiError, ApiTurn

USE = {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": 1}}]}


def body(**kw) -> dict:
    return {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}], **kw}


def test_a_failed_result_reaches_the_model_marked_as_an_error():
    request = read_request(body(system="Be brief.", messages=[
        {"role": "user", "content": "go"}, USE,
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                                      "content": "division by zero"}]}]))
    system, user, assistant, result = request.messages
    assert system["content"] == "Be brief." and assistant["tool_calls"][0]["function"]["arguments"] == {"x": 1}
    assert result == {"role": "tool", "content": "Error: division by zero"}


@pytest.mark.parametrize("bad", [
    dict(max_tokens=None),
    dict(tool_choice={"type": "sometimes"}),
    dict(tools=[{"type": "web_search_20250305", "name": "web_search"}]),
    dict(tools=[{"name": "f", "input_schema": {"type": "array"}}]),
    dict(messages=[{"role": "user", "content": "go"}, USE, {"role": "user", "content": "no result"}]),
    dict(messages=[{"role": "user", "content": "go"}, USE, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "?"}]}]),
])
def test_a_bad_request_is_a_400(bad):
    with pytest.raises(ApiError) as err:
        read_request(body(**bad))
    assert err.value.status == 400


def test_choice_and_parallel_calls():
    request = read_request(body(tool_choice={"type": "any", "disable_parallel_tool_use": True}))
    assert (request.choice, request.parallel) == ("required", False)


TURN = ApiTurn("p", "raw", "Let me see.", [ApiCall("toolu_1", "f", '{"x": 1}', ['{"x":', ' 1}'])], "tool_calls", 7, 3)


def test_a_turn_as_the_message_object():
    reply = response(TURN, "m")
    assert reply["stop_reason"] == "tool_use" and reply["type"] == "message"
    assert reply["content"] == [{"type": "text", "text": "Let me see."},
                                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": 1}}]


def test_a_stream_sends_text_then_the_call_as_input_json_deltas():
    out = list(events(iter([("start", 7), ("text", "Let me see."), ("done", TURN)]), "m"))
    names = [name for name, _ in out]
    assert names == ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                     "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
                     "message_delta", "message_stop"]
    assert [d["delta"]["partial_json"] for n, d in out[5:7]] == ['{"x":', ' 1}']
    assert out[4][1]["content_block"]["type"] == "tool_use" and out[4][1]["index"] == 1
    assert out[8][1]["delta"]["stop_reason"] == "tool_use"
