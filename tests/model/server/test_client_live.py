"""The server source against both real inference servers, each started here on 127.0.0.1 with the
0.5B pack's GGUF file and stopped after: llama-cpp-python's (`kitchen.model.server.llama_python`)
and llama.cpp's own `llama-server` (`kitchen.model.server.llama_server`, built from the pinned source).

What is checked is the plumbing a chapter relies on, not what the model knows: a reply with
per-token probabilities and top candidates, stop strings kept as the other models keep them, the
harness running through the server with the prompt rendered here, a batch sent at once, and
chapter 07's grammars translated to GBNF and held by the server (each reply is also checked
against the Lark grammar here, by llguidance, inside `ServerModel`). The two servers answer in
different shapes (`kitchen.model.server.dialects`); every check here holds on both.
"""

from __future__ import annotations

import pytest

from kitchen.grammar.calls import CALL_OPEN, call_grammar
from kitchen.harness.loop import run_harness
from kitchen.harness.parsing import parse_tool_calls
from kitchen.model.server.client import ServerModel
from kitchen.model.server.llama_python import llama_python_server
from kitchen.model.server.llama_server import llama_cpp_server
from kitchen.tools import TOY_TOOLS, calculator

pytestmark = pytest.mark.model
QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]
SERVERS = {"llama-cpp-python": llama_python_server, "llama-server": llama_cpp_server}


@pytest.fixture(scope="module", params=sorted(SERVERS))
def model(request):
    with SERVERS[request.param]("0.5b") as url:
        yield ServerModel(url, "0.5b")


def test_the_announcement_names_the_server_and_its_model(model):
    line = model.describe()
    assert model.url in line and model.served == "Qwen2.5-Coder-0.5B-Instruct-Q4_K_M" and model.served in line


def test_a_reply_with_probabilities_and_candidates(model):
    reply = model.generate(QUESTION, max_new_tokens=8, top_k=5)
    assert reply.tokens and "".join(t.text for t in reply.tokens) == reply.text
    assert reply.stop_reason == "max_new_tokens" and len(reply.tokens) == 8
    assert all(0 < t.prob <= 1 for t in reply.tokens)
    for token in reply.tokens:
        assert 1 <= len(token.top) <= 5 and [c.prob for c in token.top] == sorted((c.prob for c in token.top), reverse=True)
        assert token.top[0].text == token.text  # greedy: the chosen token is the top candidate
    assert reply.prompt == model.render(QUESTION) and "<|im_start|>assistant" in reply.prompt


def test_a_stop_string_is_kept_and_told_from_the_end_of_the_turn(model):
    free = model.generate(QUESTION, max_new_tokens=40)  # this model repeats the question first
    assert free.stop_reason == "end_of_turn" and "5678" in free.text
    held = model.generate(QUESTION, stop=["5678"], max_new_tokens=40)
    assert held.stop_reason == "stop_string" and held.stop_string == "5678"
    assert held.text == free.text[: free.text.index("5678") + 4]
    assert "".join(t.text for t in held.tokens) == held.text


def test_the_harness_runs_through_the_server(model):
    trace = run_harness(model, "What is 1234 × 5678?", [calculator], max_steps=3, max_new_tokens=80)
    assert trace.steps and trace.stop_reason in ("answer", "cap")
    assert "<tools>" in trace.steps[0].generation.prompt  # rendered here, with the tools


def test_a_batch_goes_to_the_server_at_once(model):
    prompts = [model.render([{"role": "user", "content": q}]) for q in ("Say yes.", "Say no.")]
    replies = model.generate_prompts(prompts, max_new_tokens=8)
    assert [r.prompt for r in replies] == prompts and all(r.text for r in replies)


def test_a_grammar_holds_the_reply_on_the_server(model):
    notes = [{"role": "user", "content": "Which files are in the notes folder?"}]
    named = model.generate(notes, TOY_TOOLS, grammar=call_grammar(TOY_TOOLS, {"name": "calculator"}),
                           max_new_tokens=60, top_k=3)
    assert named.stop_reason == "end_of_turn" and named.token_ids[0] == CALL_OPEN
    # the server lists the model's own top choices; the mask, walked here, marks them as the decode loop does
    assert named.tokens[0].top[0].allowed is False  # unheld, this model starts a bare {"name": ...}
    assert all(c.allowed for t in named.tokens for c in t.top if c.token_id == t.token_id)
    calls = parse_tool_calls(named.text).calls
    assert [c.name for c in calls] == ["calculator"] and set(calls[0].arguments) == {"expression"}
    none = model.generate(notes, TOY_TOOLS, grammar=call_grammar(TOY_TOOLS, "none"), max_new_tokens=10)
    assert none.text and CALL_OPEN not in none.token_ids and "<tool_call>" not in none.text
    digits = model.generate_prompts([model.render(QUESTION)], max_new_tokens=6, grammars=['start: /[0-9]{3}/'])[0]
    assert len(digits.text) == 3 and digits.text.isdigit() and digits.stop_reason == "end_of_turn"
