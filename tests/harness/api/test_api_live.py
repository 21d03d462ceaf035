"""Chapter 09 on the 1.5B pack: the same request (the calculator, 987 × 654) through the `openai`
SDK and the `anthropic` SDK against the chapter's server, and through llama.cpp's own server.

Each reaches 645,498: through the chapter's server the model asks for the call and answers after
the result; llama-server hands this pack's fenced call back as text (its parser reads `<tool_call>`
tags only), so the application reads the call from the text, as chapter 09 shows, and sends the
result back under an id of its own.
"""

from __future__ import annotations

import json

import pytest
from openai import OpenAI

from kitchen.claims.ch09 import anthropic_loop, openai_loop
from kitchen.harness.parsing import parse_tool_calls
from kitchen.harness.protocols import ANSWER_NOTE
from kitchen.model.load import load_model
from kitchen.model.server.llama_server import llama_cpp_server
from kitchen.tools import calculator, tool_schema

pytestmark = pytest.mark.model
QUESTION = [{"role": "user", "content": "What is 987 × 654?"}]
TOOLS = [tool_schema(calculator)]


@pytest.fixture(scope="module")
def big():
    return load_model("1.5b", announce=False)


def called_then_answered(turns) -> None:
    first, last = turns[0], turns[-1]
    assert [(c.name, c.input) for c in first.calls] == [("calculator", {"expression": "987 * 654"})]
    assert first.finish == "tool_calls" and last.finish == "stop"
    assert "645498" in last.content.replace(",", "")


@pytest.mark.parametrize("loop", [openai_loop, anthropic_loop], ids=["openai", "anthropic"])
def test_the_sdk_loop_reaches_the_answer_on_the_chapters_server(big, loop):
    called_then_answered(loop(big))


def test_the_same_request_through_llama_server():
    with llama_cpp_server("1.5b", parallel=1) as url:
        client = OpenAI(base_url=url + "/v1", api_key="not-needed", max_retries=0)
        reply = client.chat.completions.create(model="local", messages=QUESTION, tools=TOOLS, temperature=0)
        message = reply.choices[0].message
        calls = ([(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls]
                 if message.tool_calls else
                 [(c.name, c.arguments) for c in parse_tool_calls(message.content or "", tools=TOOLS).calls])
        assert calls == [("calculator", {"expression": "987 * 654"})], message
        arguments = json.dumps(calls[0][1])
        follow_up = QUESTION + [
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_app_1", "type": "function", "function": {"name": "calculator", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": "call_app_1", "content": calculator(**calls[0][1]) + "\n\n" + ANSWER_NOTE}]
        answer = client.chat.completions.create(model="local", messages=follow_up, tools=TOOLS, temperature=0)
    assert "645498" in (answer.choices[0].message.content or "").replace(",", "")
