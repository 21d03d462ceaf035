"""llama.cpp's own `llama-server`: its command line, its router preset, and (live, on the offline
packs) what it gives that llama-cpp-python's server does not: both tiers at once, real token ids,
special tokens named among the candidates, and several requests answered together."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kitchen.model.server.client import ServerModel
from kitchen.model.server.llama_server import CONTEXT, command, llama_cpp_server, preset

QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]


def test_the_command_has_slots_a_shared_cache_no_web_page_and_stays_on_loopback():
    line = command(Path("/b/llama-server"), ["-m", "/p/a.gguf"], parallel=30, host="127.0.0.1", port=8123)
    joined = " ".join(line)
    assert line[0] == "/b/llama-server" and "--parallel 30" in joined and f"--ctx-size {30 * CONTEXT}" in joined
    assert "--no-kv-unified" in line and "--no-ui" in line and "--host 127.0.0.1" in joined


def test_the_preset_lists_each_file_under_its_name_loaded_at_start():
    text = preset([Path("/p/Qwen-0.5B.gguf"), Path("/p/Qwen-1.5B.gguf")])
    assert text.count("load-on-startup = true") == 2 and "[Qwen-1.5B]\nmodel = /p/Qwen-1.5B.gguf" in text


@pytest.fixture(scope="module")
def url():
    with llama_cpp_server("0.5b", "1.5b", parallel=4) as url:
        yield url


@pytest.mark.model
def test_one_router_serves_each_tier_its_own_model(url):
    small, large = ServerModel(url, "0.5b"), ServerModel(url, "1.5b")
    assert "0.5B" in small.served and "1.5B" in large.served
    assert small.generate(QUESTION, max_new_tokens=4).text and large.generate(QUESTION, max_new_tokens=4).text


@pytest.mark.model
def test_token_ids_are_the_servers_and_the_end_of_turn_is_named_among_the_candidates(url):
    model = ServerModel(url, "0.5b")
    reply = model.generate([{"role": "user", "content": "Say yes."}], max_new_tokens=20, top_k=10)
    assert reply.stop_reason == "end_of_turn"
    assert reply.token_ids == model.encode(reply.text)  # ids sent by the server, not guessed from the text
    candidates = {c.text: c.token_id for t in reply.tokens for c in t.top}
    assert candidates.get("<|im_end|>") == 151645


@pytest.mark.model
def test_four_different_requests_at_once_all_get_their_own_reply(url):
    model = ServerModel(url, "0.5b")
    questions = ["Say yes.", "Say no.", "Name a colour.", "Name a fruit."]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda q: model.generate([{"role": "user", "content": q}], max_new_tokens=12), questions))
    alone = [model.generate([{"role": "user", "content": q}], max_new_tokens=12) for q in questions]
    assert [r.text for r in together] == [r.text for r in alone]  # greedy: batching changes no reply
