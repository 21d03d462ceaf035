"""Bedrock's Converse shape, as data: the same turn, and one call in the three shapes."""

from kitchen.harness.api.converse_shape import converse_response, converse_result, shapes
from kitchen.harness.api.turns import ApiCall, ApiTurn

TURN = ApiTurn("p", "raw", "", [ApiCall("call_1", "calculator", '{"expression": "987 * 654"}', [])], "tool_calls", 9, 4)


def test_a_call_as_a_tool_use_block_with_its_id():
    reply = converse_response(TURN)
    assert reply["stopReason"] == "tool_use"
    assert reply["output"]["message"]["content"] == [
        {"toolUse": {"toolUseId": "call_1", "name": "calculator", "input": {"expression": "987 * 654"}}}]
    assert reply["usage"]["totalTokens"] == 13


def test_a_result_goes_back_as_json_or_text_with_its_status():
    assert converse_result("t", "boom", ok=False)["toolResult"]["status"] == "error"
    assert converse_result("t", "645498")["toolResult"]["content"] == [{"text": "645498"}]


def test_one_call_three_shapes_the_same_name_id_and_arguments():
    table = shapes(TURN)
    openai_call = table["OpenAI Chat Completions"]["tool_calls"][0]
    anthropic_call = table["Anthropic Messages"]["content"][0]
    converse_call = table["Bedrock Converse"]["content"][0]["toolUse"]
    assert openai_call["function"]["arguments"] == '{"expression": "987 * 654"}'  # a JSON string
    assert anthropic_call["input"] == converse_call["input"] == {"expression": "987 * 654"}  # an object
    assert openai_call["id"] == anthropic_call["id"] == converse_call["toolUseId"]
    assert [table[k].get("finish_reason") or table[k].get("stop_reason") or table[k].get("stopReason")
            for k in table] == ["tool_calls", "tool_use", "tool_use"]
