"""Anthropic's Messages shape: a request read into a `ChatRequest`, a turn written back as the
message object or as the events of a stream.

The same turn as OpenAI's, said another way: calls are `tool_use` content blocks (`id`, `name`,
`input` as an object), the reply's `stop_reason` is "tool_use", results come back as `tool_result`
blocks inside a *user* message, linked by `tool_use_id`, with `is_error` for a failed tool. Qwen's
template knows none of that: the server turns results into `tool` messages in the calls' order and,
its own choice, starts a failed result's text with "Error: " (the template has nowhere else to say it).

Reference: https://docs.anthropic.com/en/api/messages and .../messages-streaming (read 2026-12-07).

>>> read_choice({"type": "any"}), read_choice({"type": "tool", "name": "calculator"})
('required', {'name': 'calculator'})
"""

from __future__ import annotations

from typing import Any, Iterator

from kitchen.harness.api.turns import ApiError, ApiTurn, ChatRequest, new_id
from kitchen.harness.api.request_parts import read_stop, schema_tool, text_of

STOP_REASONS = {"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"}


def read_request(body: Any) -> ChatRequest:
    """A `/v1/messages` body as a `ChatRequest`; `ApiError` (400) saying what is wrong."""
    if not isinstance(body, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise ApiError(400, "max_tokens: a positive integer is required.", param="max_tokens")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "messages: a non-empty list is required.", param="messages")
    tools, strict = read_tools(body.get("tools") or [])
    choice = body.get("tool_choice") or {"type": "auto"}
    system = text_of(body.get("system"), "system")
    return ChatRequest(model=str(body.get("model", "")),
                       messages=([{"role": "system", "content": system}] if system else []) + read_messages(messages),
                       tools=tools, choice=read_choice(choice), strict=strict,
                       parallel=not (isinstance(choice, dict) and choice.get("disable_parallel_tool_use")),
                       max_tokens=max_tokens, stop=read_stop(body.get("stop_sequences")),
                       stream=bool(body.get("stream")))


def read_tools(tools: Any) -> tuple[list[dict], bool]:
    """The tools as the chat template's schemas, and whether any asked for `strict`."""
    if not isinstance(tools, list):
        raise ApiError(400, "tools: must be a list.", param="tools")
    out = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or tool.get("type") not in (None, "custom"):
            raise ApiError(400, f"tools.{i}: only client tools (name, description, input_schema) are served here, "
                                f"not {tool.get('type') if isinstance(tool, dict) else tool!r}.", param=f"tools.{i}")
        out.append(schema_tool(tool.get("name"), tool.get("description", ""), tool.get("input_schema"), f"tools.{i}"))
    return out, any(isinstance(t, dict) and t.get("strict") for t in tools)


def read_choice(choice: Any) -> Any:
    """`tool_choice` in the grammar's terms: auto, any (= "required"), none, or one tool by name."""
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind in ("auto", "none"):
        return kind
    if kind == "any":
        return "required"
    if kind == "tool" and isinstance(choice.get("name"), str):
        return {"name": choice["name"]}
    raise ApiError(400, "tool_choice: must be {'type': 'auto' | 'any' | 'none'} or {'type': 'tool', 'name': ...}.",
                   param="tool_choice")


def blocks_of(content: Any, where: str) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        raise ApiError(400, f"{where}.content: a string or a list of content blocks.", param=f"{where}.content")
    return content


def read_messages(messages: list) -> list[dict]:
    """The conversation in Qwen's terms; every `tool_result` checked against the `tool_use` just before."""
    out: list[dict] = []
    waiting: list[str] = []  # the ids of the previous assistant turn's tool_use blocks
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise ApiError(400, f"messages.{i}.role: 'user' or 'assistant'.", param=f"messages.{i}.role")
        blocks = blocks_of(message.get("content"), f"messages.{i}")
        if role == "assistant":
            if waiting:
                raise ApiError(400, f"messages.{i}: tool_use ids {waiting} were found without tool_result "
                                    f"blocks immediately after.", param=f"messages.{i}")
            turn = assistant_turn(blocks, f"messages.{i}")
            waiting = [c.pop("id") for c in turn.get("tool_calls", [])]  # Qwen's template has no ids
            out.append(turn)
            continue
        results = {b.get("tool_use_id"): b for b in blocks if b.get("type") == "tool_result"}
        unknown = [r for r in results if r not in waiting]
        if unknown or (waiting and set(results) != set(waiting)):
            raise ApiError(400, f"messages.{i}: tool_result ids {list(results)} must answer exactly the tool_use "
                                f"ids {waiting} of the turn before.", param=f"messages.{i}")
        out += [{"role": "tool", "content": result_text(results[c], f"messages.{i}")} for c in waiting]
        waiting = []
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        if text or not results:
            out.append({"role": "user", "content": text})
    if waiting:
        raise ApiError(400, f"tool_use ids {waiting} were found without tool_result blocks after them.",
                       param="messages")
    return out


def assistant_turn(blocks: list[dict], where: str) -> dict:
    """An assistant message's blocks (text, tool_use) as one turn of Qwen's."""
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    calls = []
    for j, block in enumerate(b for b in blocks if b.get("type") == "tool_use"):
        if not isinstance(block.get("id"), str) or not block.get("name") or not isinstance(block.get("input"), dict):
            raise ApiError(400, f"{where}.content: a tool_use block needs an id, a name and an input object.",
                           param=f"{where}.content")
        calls.append({"id": block["id"], "type": "function",
                      "function": {"name": block["name"], "arguments": block["input"]}})
    ids = [c["id"] for c in calls]
    if len(set(ids)) != len(ids):
        raise ApiError(400, f"{where}: two tool_use blocks share an id ({ids}).", param=f"{where}.content")
    turn: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        turn["tool_calls"] = calls
    return turn


def result_text(block: dict, where: str) -> str:
    text = text_of(block.get("content"), where)
    return f"Error: {text}" if block.get("is_error") and not text.startswith("Error") else text


def response(turn: ApiTurn, model: str) -> dict:
    """The `message` object for a finished turn."""
    return {"id": new_id("msg_"), "type": "message", "role": "assistant", "model": model,
            "content": content_blocks(turn), "stop_reason": stop_reason(turn), "stop_sequence": turn.stop_string,
            "usage": {"input_tokens": turn.prompt_tokens, "output_tokens": turn.completion_tokens}}


def stop_reason(turn: ApiTurn) -> str:
    return "stop_sequence" if turn.stop_string and not turn.calls else STOP_REASONS[turn.finish]


def content_blocks(turn: ApiTurn) -> list[dict]:
    blocks: list[dict] = [{"type": "text", "text": turn.content}] if turn.content else []
    return blocks + [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in turn.calls]


def events(turn_events: Iterator[tuple[str, Any]], model: str) -> Iterator[tuple[str, dict]]:
    """The (event, data) pairs of a stream: message_start, a text block as it comes, per call a
    tool_use block whose input arrives as `input_json_delta` fragments, message_delta, message_stop."""
    index, text_open = 0, False
    for kind, value in turn_events:
        if kind == "start":
            yield "message_start", {"type": "message_start", "message": {
                "id": new_id("msg_"), "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": value, "output_tokens": 0}}}
        elif kind == "text":
            if not text_open:
                yield "content_block_start", {"type": "content_block_start", "index": index,
                                              "content_block": {"type": "text", "text": ""}}
                text_open = True
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "text_delta", "text": value}}
        elif kind == "done":
            if text_open:
                yield "content_block_stop", {"type": "content_block_stop", "index": index}
                index += 1
            yield from call_events(value, index)
            yield "message_delta", {"type": "message_delta", "usage": {"output_tokens": value.completion_tokens},
                                    "delta": {"stop_reason": stop_reason(value), "stop_sequence": value.stop_string}}
            yield "message_stop", {"type": "message_stop"}


def call_events(turn: ApiTurn, index: int) -> Iterator[tuple[str, dict]]:
    for n, call in enumerate(turn.calls, start=index):
        yield "content_block_start", {"type": "content_block_start", "index": n, "content_block": {
            "type": "tool_use", "id": call.id, "name": call.name, "input": {}}}
        for fragment in call.fragments:
            yield "content_block_delta", {"type": "content_block_delta", "index": n,
                                          "delta": {"type": "input_json_delta", "partial_json": fragment}}
        yield "content_block_stop", {"type": "content_block_stop", "index": n}


def error_body(error: ApiError) -> dict:
    """An error as Anthropic's API writes one (what the SDK raises `BadRequestError` etc. from)."""
    kind = {404: "not_found_error", 500: "api_error"}.get(error.status, "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": error.message}}

