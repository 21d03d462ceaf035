"""Chapter 09's claims: the 1.5B pack, behind the chapter's server, does the 987 × 654 tool loop
through both official SDKs: a calculator call first, then the right answer.

Each run serves the model with `serve_api` and drives it with the SDK's client, as the chapter does;
the evidence is the server's record of the loop's turns (`ApiServer.turns`: what the model wrote and
what the SDK was handed), so a verdict cell reads the turns of the loop the chapter just ran.
"""

from __future__ import annotations

import json

import anthropic
import openai

from kitchen.claims.core import BIG_PACK, claim
from kitchen.harness.api.app import serve_api
from kitchen.harness.api.turns import ApiTurn
from kitchen.harness.protocols import ANSWER_NOTE
from kitchen.tools import calculator
from kitchen.tools.schemas import as_schema

PRODUCT = "What is 987 × 654?"
TOOLS = [as_schema(calculator)]
MAX_REQUESTS = 4
MAX_TOKENS = 120
# As in the chapter: after a bare result this pack asks for the same call again; the note after a
# result (chapter 03's) asks for the answer.
NOTE = "\n\n" + ANSWER_NOTE


def openai_loop(model) -> list[ApiTurn]:
    """The tool loop through the `openai` SDK; the server's record of its turns."""
    with serve_api(model) as api:
        client = openai.OpenAI(base_url=api.url + "/v1", api_key="not-needed", max_retries=0)
        messages: list[dict] = [{"role": "user", "content": PRODUCT}]
        for _ in range(MAX_REQUESTS):
            choice = client.chat.completions.create(model="local", messages=messages, tools=TOOLS,
                                                    max_tokens=MAX_TOKENS).choices[0]
            messages.append(choice.message.model_dump(exclude_none=True))
            if choice.finish_reason != "tool_calls":
                break
            for call in choice.message.tool_calls:
                result = calculator(**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result + NOTE})
        return list(api.turns)


def anthropic_loop(model) -> list[ApiTurn]:
    """The same loop through the `anthropic` SDK."""
    tools = [{"name": t["function"]["name"], "description": t["function"]["description"],
              "input_schema": t["function"]["parameters"]} for t in TOOLS]
    with serve_api(model) as api:
        client = anthropic.Anthropic(base_url=api.url, api_key="not-needed", max_retries=0)
        messages: list[dict] = [{"role": "user", "content": PRODUCT}]
        for _ in range(MAX_REQUESTS):
            reply = client.messages.create(model="local", max_tokens=MAX_TOKENS, messages=messages, tools=tools)
            uses = [b for b in reply.content if b.type == "tool_use"]
            messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]})
            if reply.stop_reason != "tool_use":
                break
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": b.id, "content": calculator(**b.input) + NOTE} for b in uses]})
        return list(api.turns)


def _call_then_answer(turns: list[ApiTurn]) -> tuple[bool, str]:
    first, last = turns[0], turns[-1]
    called = ([c.name for c in first.calls] == ["calculator"]
              and first.calls[0].input.get("expression", "").replace(" ", "") in ("987*654", "654*987"))
    answered = last.finish == "stop" and "645498" in last.content.replace(",", "")
    calls = ", ".join(f"{c.name}({c.arguments})" for c in first.calls) or "no call"
    return called and answered, f"first reply: {calls}; last reply ({last.finish}): {last.content!r}"


@claim("09.openai_loop_large", "through the openai SDK, the 1.5B pack asks for calculator(987 * 654), then "
       "answers 645,498", "1.5b", BIG_PACK, openai_loop)
def _openai_loop(turns) -> tuple[bool, str]:
    return _call_then_answer(turns)


@claim("09.anthropic_loop_large", "through the anthropic SDK, the 1.5B pack asks for calculator(987 * 654), then "
       "answers 645,498", "1.5b", BIG_PACK, anthropic_loop)
def _anthropic_loop(turns) -> tuple[bool, str]:
    return _call_then_answer(turns)
