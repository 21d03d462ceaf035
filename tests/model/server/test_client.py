"""The server source against servers that misbehave: each a `ServerError` naming the URL, in time.

Real sockets on loopback: nothing listening, a server that accepts and never answers, and servers
that answer with something other than a completion. (The source against a real llama.cpp server
is in tests/model/server/test_llama_python.py.)
"""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kitchen.model.selection import choose
from kitchen.model.load import load_model
from kitchen.model.server.client import ServerError, ServerModel
from kitchen.model.server.ports import free_port

MODELS = {"object": "list", "data": [{"id": "test-model.gguf", "object": "model", "owned_by": "me"}]}


@contextmanager
def serving(answers: dict[str, tuple[int, str]]):
    """A local HTTP server answering each path with (status, body); yields its URL, then closes."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self):
            status, body = answers.get(self.path, (404, "no such path"))
            if self.headers.get("content-length"):
                self.rfile.read(int(self.headers["content-length"]))
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())

        do_GET = do_POST = _answer

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def stalling():
    """A socket that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


def test_nothing_listening_is_a_clear_error_at_once():
    url = f"http://127.0.0.1:{free_port()}"
    t0 = time.monotonic()
    with pytest.raises(ServerError, match=rf"{url}/v1/models cannot be reached"):
        ServerModel(url)
    assert time.monotonic() - t0 < 5


def test_a_server_that_stalls_is_an_error_within_the_timeout(stalling):
    t0 = time.monotonic()
    with pytest.raises(ServerError, match=rf"{stalling}/v1/models gave no answer within 1 s"):
        ServerModel(stalling, timeout=1, connect_timeout=1)
    assert time.monotonic() - t0 < 4


def test_malformed_answers_are_clear_errors():
    with serving({"/v1/models": (200, "<html>hello</html>")}) as url:
        with pytest.raises(ServerError, match="answered something that is not JSON"):
            ServerModel(url)
    with serving({"/v1/models": (200, json.dumps(MODELS)),
                  "/v1/completions": (200, json.dumps({"choices": [{"text": "408"}]}))}) as url:
        model = ServerModel(url + "/v1/")
        assert model.url == url and model.served == "test-model.gguf" and url in model.describe()
        with pytest.raises(ServerError, match="not a completion with log-probabilities"):
            model.generate([{"role": "user", "content": "12 * 34?"}])


def completion(pieces: list[str]) -> str:
    """A completions-API answer writing `pieces`, each token certain."""
    return json.dumps({"choices": [{"text": "".join(pieces), "finish_reason": "stop", "logprobs": {
        "tokens": pieces, "token_logprobs": [0.0] * len(pieces), "top_logprobs": [{p: 0.0} for p in pieces]}}]})


def test_a_reply_is_checked_against_the_grammar_it_was_sent():
    question = [{"role": "user", "content": "12 * 34?"}]
    for pieces, held in ((["4", "0", "8"], True), (["The", " answer"], False)):
        with serving({"/v1/models": (200, json.dumps(MODELS)), "/v1/completions": (200, completion(pieces))}) as url:
            model = ServerModel(url)
            if held:
                reply = model.generate(question, grammar='start: /[0-9]+/')
                assert reply.text == "408" and all(c.allowed is True for t in reply.tokens for c in t.top)
            else:  # a server that ignored the grammar: an error, not an unheld reply passed off as held
                with pytest.raises(ServerError, match="the reply breaks the grammar"):
                    model.generate(question, grammar='start: /[0-9]+/')


def test_an_http_error_names_the_status():
    with serving({"/v1/models": (503, "loading model")}) as url:
        with pytest.raises(ServerError, match="answered HTTP 503: loading model"):
            ServerModel(url)


def test_kitchen_model_names_a_server(monkeypatch):
    with serving({"/v1/models": (200, json.dumps(MODELS))}) as url:
        monkeypatch.setenv("KITCHEN_MODEL", f"server:{url}")
        assert choose("1.5b")[:2] == ("1.5b", "server")
        model = load_model("1.5b", announce=False)
        assert isinstance(model, ServerModel) and model.url == url and model.info.source == "server"
    monkeypatch.delenv("KITCHEN_MODEL")
    with pytest.raises(ValueError, match="needs the server's URL"):
        load_model("0.5b", source="server", announce=False)


def test_a_server_serving_several_models_gives_the_tiers_own():
    listing = {"data": [{"id": "Qwen2.5-Coder-0.5B-Instruct-Q4_K_M"}, {"id": "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M"}]}
    with serving({"/v1/models": (200, json.dumps(listing))}) as url:
        assert ServerModel(url, "1.5b").served == "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M"
        assert ServerModel(url, "0.5b").served == "Qwen2.5-Coder-0.5B-Instruct-Q4_K_M"
    with serving({"/v1/models": (200, json.dumps(MODELS))}) as url:  # one model serves every tier
        assert ServerModel(url, "1.5b").served == "test-model.gguf"


def test_a_server_does_not_score_a_given_text():
    with serving({"/v1/models": (200, json.dumps(MODELS))}) as url:
        with pytest.raises(ServerError, match="does not score a given text"):
            ServerModel(url, "0.5b").logprobs("What is 2 + 2?", "<tool_call>")
