"""OpenAI's Chat Completions shape: a request read into a `ChatRequest`, a turn written back as the
response object or as the chunks of a stream.

What the API hands out and what Qwen reads differ in three places, all handled here:

- an assistant message's `tool_calls[].function.arguments` is a JSON *string* in the API; Qwen's
  template wants the object, so the string is parsed back (kept as is if it is not JSON);
- a `tool` message names its call by `tool_call_id`; Qwen's template has no ids and reads results
  in order, so the server checks every id against the calls before it and lines the results up in
  the calls' order;
- `tool_choice` and `strict` become chapter 07's grammar (`kitchen.harness.api.turns`).

Reference: https://platform.openai.com/docs/api-reference/chat (read 2026-12-07).

>>> read_choice({"type": "function", "function": {"name": "calculator"}})
{'name': 'calculator'}
"""

from __future__ import annotations

import json
import time
from typing import Any, Iterator

from kitchen.harness.api.turns import ApiError, ApiTurn, ChatRequest, new_id
from kitchen.harness.api.request_parts import function_tool, read_stop, text_of


def read_request(body: Any) -> ChatRequest:
    """A `/v1/chat/completions` body as a `ChatRequest`; `ApiError` (400) saying what is wrong."""
    if not isinstance(body, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "'messages' must be a non-empty list.", param="messages")
    tools = body.get("tools") or []
    if not isinstance(tools, list):
        raise ApiError(400, "'tools' must be a list.", param="tools")
    specs = [function_tool(t, f"tools[{i}]") for i, t in enumerate(tools)]
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens", 256))
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise ApiError(400, "'max_tokens' must be a positive integer.", param="max_tokens")
    return ChatRequest(model=str(body.get("model", "")), messages=read_messages(messages),
                       tools=[s for s, _ in specs], choice=read_choice(body.get("tool_choice", "auto")),
                       parallel=bool(body.get("parallel_tool_calls", True)), strict=any(s for _, s in specs),
                       max_tokens=max_tokens, stop=read_stop(body.get("stop")), stream=bool(body.get("stream")))


def read_choice(choice: Any) -> Any:
    """`tool_choice` in the grammar's terms: "auto", "required", "none" or {"name": ...}."""
    if choice in ("auto", "required", "none"):
        return choice
    if isinstance(choice, dict) and isinstance((choice.get("function") or {}).get("name"), str):
        return {"name": choice["function"]["name"]}
    raise ApiError(400, "'tool_choice' must be 'auto', 'required', 'none' or "
                        "{'type': 'function', 'function': {'name': ...}}.", param="tool_choice")


def read_messages(messages: list) -> list[dict]:
    """The conversation in Qwen's terms, every `tool_call_id` checked against the calls before it."""
    out: list[dict] = []
    waiting: list[str] = []  # ids of the last assistant turn's calls not answered yet
    answers: dict[str, dict] = {}
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("system", "developer", "user",
                                                                         "assistant", "tool"):
            raise ApiError(400, f"messages[{i}] needs a role: system, developer, user, assistant or tool.",
                           param=f"messages[{i}]")
        role = message["role"]
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                raise ApiError(400, f"messages[{i}] answers tool_call_id {call_id!r}, which no call before "
                                    f"it is waiting for (waiting: {waiting}).", param=f"messages[{i}].tool_call_id")
            waiting.remove(call_id)
            answers[call_id] = {"role": "tool", "content": text_of(message.get("content"), f"messages[{i}]")}
            if not waiting:
                out += [answers[c] for c in order]
            continue
        if waiting:
            raise ApiError(400, f"messages[{i}]: the calls {waiting} have no tool message answering them.",
                           param=f"messages[{i}]")
        if role == "assistant" and message.get("tool_calls"):
            calls = read_calls(message["tool_calls"], f"messages[{i}].tool_calls")
            order = [c for c, _ in calls]
            waiting = list(order)
            out.append({"role": "assistant", "content": text_of(message.get("content"), f"messages[{i}]"),
                        "tool_calls": [call for _, call in calls]})
            continue
        out.append({"role": "system" if role == "developer" else role,
                    "content": text_of(message.get("content"), f"messages[{i}]")})
    if waiting:
        raise ApiError(400, f"The calls {waiting} have no tool message answering them.", param="messages")
    return out


def read_calls(calls: Any, where: str) -> list[tuple[str, dict]]:
    """(id, call in Qwen's terms) for an assistant message's `tool_calls`."""
    if not isinstance(calls, list):
        raise ApiError(400, f"{where} must be a list.", param=where)
    out = []
    for j, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(call.get("id"), str) or not function.get("name"):
            raise ApiError(400, f"{where}[{j}] needs an id and a function with a name.", param=f"{where}[{j}]")
        arguments = function.get("arguments", "{}")
        try:
            arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
        except ValueError:
            pass  # not JSON: Qwen's template shows the string as it is, as the model wrote it
        out.append((call["id"], {"type": "function", "function": {"name": function["name"], "arguments": arguments}}))
    ids = [c for c, _ in out]
    if len(set(ids)) != len(ids):
        raise ApiError(400, f"{where}: two calls share an id ({ids}).", param=where)
    return out


def response(turn: ApiTurn, model: str) -> dict:
    """The `chat.completion` object for a finished turn."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or None, "refusal": None}
    if turn.calls:
        message["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": c.arguments}} for c in turn.calls]
    return {"id": new_id("chatcmpl-"), "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": turn.finish, "logprobs": None}],
            "usage": usage(turn)}


def usage(turn: ApiTurn) -> dict:
    return {"prompt_tokens": turn.prompt_tokens, "completion_tokens": turn.completion_tokens,
            "total_tokens": turn.prompt_tokens + turn.completion_tokens}


def chunks(events: Iterator[tuple[str, Any]], model: str, include_usage: bool = False) -> Iterator[dict]:
    """The `chat.completion.chunk`s of a stream, from `stream_turn`'s events: the role first, text
    as it comes, then per call its id and name and its arguments in fragments, then the finish."""
    head = {"id": new_id("chatcmpl-"), "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    for kind, value in events:
        if kind == "start":
            yield chunk({"role": "assistant", "content": ""})
        elif kind == "text":
            yield chunk({"content": value})
        elif kind == "done":
            for index, call in enumerate(value.calls):
                yield chunk({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                             "function": {"name": call.name, "arguments": ""}}]})
                for fragment in call.fragments:
                    yield chunk({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})
            yield chunk({}, value.finish)
            if include_usage:
                yield {**head, "choices": [], "usage": usage(value)}


def error_body(error: ApiError) -> dict:
    """An error as OpenAI's API writes one (what the SDK raises `BadRequestError` etc. from)."""
    return {"error": {"message": error.message, "type": error.kind, "param": error.param, "code": None}}
