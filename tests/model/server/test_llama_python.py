"""llama-cpp-python's server with its ranking of candidates made fast gives the unchanged server's
reply (the plumbing both llama.cpp servers share is checked in test_client_live.py).
"""

from __future__ import annotations

import json

import pytest

from kitchen.model.server.client import ServerModel
from kitchen.model.server.llama_python import command, config, llama_python_server

QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]


def test_the_config_serves_each_file_under_its_name_without_cutting_off_requests(tmp_path):
    settings = config([tmp_path / "a-0.5B.gguf", tmp_path / "b-1.5B.gguf"], 8123)
    assert settings["host"] == "127.0.0.1" and settings["interrupt_requests"] is False
    assert [m["model_alias"] for m in settings["models"]] == ["a-0.5B", "b-1.5B"]
    assert command(tmp_path / "s.json")[1:3] == ["-m", "kitchen.model.server.logprob_fix"]
    json.dumps(settings)


@pytest.mark.model
def test_the_fast_ranking_gives_the_unchanged_servers_reply():
    """`kitchen.model.server.logprob_fix` against llama_cpp's own server, each started fresh for this one request
    (the server keeps the last prompt's cache, and a prompt taken partly from it can score
    differently): same text, same probabilities, same candidates in the same order."""
    replies = []
    for ranked_in_full in (False, True):
        with llama_python_server("0.5b", ranked_in_full=ranked_in_full) as url:
            replies.append(ServerModel(url, "0.5b").generate(QUESTION, max_new_tokens=24, top_k=10))
    fast, unchanged = replies
    assert fast.text == unchanged.text and len(fast.tokens) > 10
    assert [(t.text, t.prob, [(c.text, c.prob) for c in t.top]) for t in fast.tokens] == \
        [(t.text, t.prob, [(c.text, c.prob) for c in t.top]) for t in unchanged.tokens]
