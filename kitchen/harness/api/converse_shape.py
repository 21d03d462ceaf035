"""Amazon Bedrock's Converse shape, as data: no Bedrock runs here.

The same turn as the other two APIs: a call is a `toolUse` block (`toolUseId`, `name`, `input`),
the reply's `stopReason` is "tool_use", a result goes back as a `toolResult` block in a user
message, linked by `toolUseId`, with `status` "success" or "error" and its content as `text` or
`json` (where an agent can put an MCP result's `structuredContent`). In a stream the input arrives as
text fragments in `contentBlockDelta` events and is parsed at `contentBlockStop`.

`shapes()` puts one call in all three shapes side by side, with the text Qwen wrote under them.

Reference: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html (read 2026-12-07).

>>> from kitchen.harness.api.turns import ApiCall, ApiTurn
>>> turn = ApiTurn("", "", "", [ApiCall("x1", "calculator", '{"expression": "2+2"}', [])], "tool_calls", 10, 5)
>>> converse_response(turn)["stopReason"]
'tool_use'
"""

from __future__ import annotations

from typing import Any

from kitchen.harness.api import anthropic_shape, openai_shape
from kitchen.harness.api.turns import ApiTurn

def converse_response(turn: ApiTurn) -> dict:
    """The Converse response for a turn: the assistant message's blocks, `stopReason`, `usage`."""
    content: list[dict[str, Any]] = [{"text": turn.content}] if turn.content else []
    content += [{"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.input}} for c in turn.calls]
    stop = anthropic_shape.stop_reason(turn)  # Converse names its stop reasons as Anthropic's API does
    return {"output": {"message": {"role": "assistant", "content": content}}, "stopReason": stop,
            "usage": {"inputTokens": turn.prompt_tokens, "outputTokens": turn.completion_tokens,
                      "totalTokens": turn.prompt_tokens + turn.completion_tokens}}


def converse_result(tool_use_id: str, result: Any, ok: bool = True) -> dict:
    """One `toolResult` block: a dict goes as `json` (an MCP result's `structuredContent` fits there), else `text`.

    >>> converse_result("tooluse_1", {"value": 4})
    {'toolResult': {'toolUseId': 'tooluse_1', 'status': 'success', 'content': [{'json': {'value': 4}}]}}
    """
    body = {"json": result} if isinstance(result, dict) else {"text": str(result)}
    return {"toolResult": {"toolUseId": tool_use_id, "status": "success" if ok else "error", "content": [body]}}


def shapes(turn: ApiTurn, model: str = "local") -> dict[str, dict]:
    """One turn in the three APIs' shapes (the call's part of each), keyed by API name."""
    openai = openai_shape.response(turn, model)
    anthropic = anthropic_shape.response(turn, model)
    converse = converse_response(turn)
    return {
        "OpenAI Chat Completions": {"finish_reason": openai["choices"][0]["finish_reason"],
                                    "tool_calls": openai["choices"][0]["message"].get("tool_calls", [])},
        "Anthropic Messages": {"stop_reason": anthropic["stop_reason"],
                               "content": [b for b in anthropic["content"] if b["type"] == "tool_use"]},
        "Bedrock Converse": {"stopReason": converse["stopReason"],
                             "content": [b for b in converse["output"]["message"]["content"] if "toolUse" in b]},
    }
