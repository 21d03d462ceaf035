"""A model behind an inference server: the OpenAI completions API (llama.cpp's servers, vLLM).

`ServerModel` is a `ChatModel` like the others, so the harness, the parsers and every prompt view
stay this project's own: the prompt is rendered here with the tier's chat template and sent as raw
text to `/v1/completions`; the reply comes back with each token's log-probability and its top
candidates, so the step-through and chapter 01's views work. llama.cpp's two servers
(llama-cpp-python's and its own `llama-server`) answer that request in different shapes; reading
them is `kitchen.model.server.dialects`, the one place that knows.

What a server does not give is left out rather than made up: token ids where it sends only text
(llama-cpp-python: the ids here are what this tokenizer gives each piece, -1 when it is not one
token; llama-server sends them), special tokens among a step's top candidates where it lists them
all as "" (llama-cpp-python; they are left out), the score of a text the model did not write
(`logprobs`), how much of the prompt came from the server's KV cache (reported as none reused),
separate pre-fill and decode times (the whole request's time counts as decode), and the
end-of-turn token. Replies are not streamed token by token: a cell's tokens appear when the reply
is done.

Chapter 07's grammars are Lark (llguidance's); llama.cpp's server reads GBNF, so a grammar is
translated (`kitchen.grammar.gbnf`) and sent in the request's `grammar` field, with the special tokens
the grammar does not name banned (`logit_bias`: llama.cpp would let them stand for their text).
A reply is then checked against the Lark grammar here, with llguidance: a server that ignored
the field (vLLM names its own differently) gives a `ServerError`, never an unconstrained reply
passed off as a held one.

Stop strings go to the server, which stops before them and leaves them out of the text; the
stop string is put back, as the other models of the series keep it. llama-cpp-python's server
still lists the cut stop string's tokens, which tells a stop string from the end of the turn; where
a server does not (llama-server), one more short greedy request (the prompt, the reply, a few
tokens) tells them apart.

A server that is down, stalls or answers something else gives a `ServerError` naming its URL,
within `timeout` seconds: never a hung cell.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

import httpx

from kitchen.model.interface import ModelInfo, TemplateChat, Tools
from kitchen.grammar.mask import grammar_complaint
from kitchen.grammar.gbnf import banned_tokens, lark_to_gbnf
from kitchen.model.server.dialects import Listed, listed_tokens, served_by
from kitchen.model.replies import Candidate, FinishedStream, Generation, StopReason, Token
from kitchen.model.tokenizer import offline_tokenizer

PROBE = 8  # tokens asked for when telling a stop string from the end of the turn


class ServerError(RuntimeError):
    """The inference server could not be used; the message names its URL and what went wrong."""


def base_url(url: str) -> str:
    """The server's root: `http://host:port` from any of `http://host:port[/v1[/]]`.

    >>> base_url("http://127.0.0.1:8080/v1/")
    'http://127.0.0.1:8080'
    """
    url = url.strip().rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def pick(models: list[dict], tier: str) -> dict:
    """The served model for a tier: the first whose name holds the tier's size ("1.5B"), else the
    first served (a room's server usually serves one model, whatever the tier asked for).

    >>> pick([{"id": "Qwen2.5-0.5B"}, {"id": "qwen2.5-1.5b-instruct"}], "1.5b")["id"]
    'qwen2.5-1.5b-instruct'
    >>> pick([{"id": "Qwen/Qwen2.5-7B-Instruct"}], "0.5b")["id"]
    'Qwen/Qwen2.5-7B-Instruct'
    """
    return next((m for m in models if tier.lower() in str(m["id"]).lower()), models[0])


class ServerModel(TemplateChat):
    """The model an OpenAI-compatible server at `url` serves for `tier` (see `pick`), with the
    tier's tokenizer and chat template (both tiers share the tokenizer; the template is the pack's)."""

    def __init__(self, url: str, tier: str = "0.5b", *, timeout: float = 300.0, connect_timeout: float = 5.0,
                 scores: bool = True):
        self.url = base_url(url)
        self.timeout, self.connect_timeout = timeout, connect_timeout
        # Without scores (the load test's learners), replies carry no probabilities (NaN), their
        # tokens are this tokenizer's cut of the text, and llama.cpp's server answers faster.
        self.scores = scores
        self.tok = offline_tokenizer(tier)
        self.special = sorted(self.tok.added_tokens_decoder)  # <|im_start|>, <tool_call>, ...
        self.end_of_turn = self.tok.convert_tokens_to_ids(["<|im_end|>", "<|endoftext|>"])
        # The full timeout, not the connect one: a busy server (llama.cpp's, under a room's load)
        # answers even this listing only between replies.
        listing = self._call("GET", "/v1/models", None, timeout)
        try:
            entry = pick(listing["data"], tier)
            self.served, server = str(entry["id"]), served_by(entry)
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ServerError(f"{self.url}/v1/models answered without a model: {str(listing)[:200]}") from None
        self.info = ModelInfo(tier, self.served, "server", f"inference server at {self.url} ({server})",
                              "none", engine=server)

    def describe(self) -> str:
        return (f"Running {self.served} ({self.info.tier.upper()} tier's chat template) · source: inference server "
                f"{self.url} · dtype: not reported")

    # -- HTTP ------------------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: dict | None, timeout: float) -> Any:
        where = f"{self.url}{path}"
        try:
            answer = httpx.request(method, where, json=body, timeout=httpx.Timeout(timeout, connect=self.connect_timeout))
        except httpx.TimeoutException:
            raise ServerError(f"{where} gave no answer within {timeout:g} s (the server stalls or is overloaded)") from None
        except httpx.HTTPError as err:
            raise ServerError(f"{where} cannot be reached: {type(err).__name__}: {err}") from None
        if answer.status_code != 200:
            raise ServerError(f"{where} answered HTTP {answer.status_code}: {answer.text[:300]}")
        try:
            return answer.json()
        except ValueError:
            raise ServerError(f"{where} answered something that is not JSON: {answer.text[:200]!r}") from None

    def _complete(self, prompt: str, max_tokens: int, stop: Sequence[str], top_k: int,
                  gbnf: str | None = None, banned: Sequence[int] = ()) -> tuple[dict, float]:
        body = {"model": self.served, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0, "stream": False}
        if gbnf:
            body["grammar"], body["logit_bias"] = gbnf, {str(t): -100 for t in banned}
        if self.scores:
            body["logprobs"] = max(1, top_k)
        if stop:
            body["stop"] = list(stop)
        t0 = time.perf_counter()
        data = self._call("POST", "/v1/completions", body, self.timeout)
        seconds = time.perf_counter() - t0
        try:
            choice = data["choices"][0]
            if not isinstance(choice["text"], str):
                raise ValueError("no text")
            if not self.scores:
                return {**choice, "logprobs": self._unscored(choice["text"])}, seconds
            choice = {**choice, "logprobs": listed_tokens(choice["logprobs"])}
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise ServerError(f"{self.url}/v1/completions answered something that is not a completion with "
                              f"log-probabilities ({err}): {str(data)[:200]}") from None
        return choice, seconds

    def _unscored(self, text: str) -> list[Listed]:
        """A reply's tokens without scores: this tokenizer's cut of the text, probabilities NaN."""
        spans = self.tok(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        cuts = [start for start, _ in spans][1:] + [len(text)]
        pieces = [text[a:b] for a, b in zip([0] + cuts[:-1], cuts)] if text else []
        return [Listed(None, piece, math.nan) for piece in pieces]

    # -- tokens ----------------------------------------------------------------------------------

    def _id(self, piece: str) -> int:
        ids = self.encode(piece)
        return ids[0] if len(ids) == 1 else -1

    def _tokens(self, listed: list[Listed], top_k: int) -> list[Token]:
        def known(token_id: int | None, text: str) -> int:
            return self._id(text) if token_id is None else token_id

        def named(token_id: int | None, text: str) -> str:
            """A candidate's text; llama-server lists a special token as "" with its id: named here."""
            special = self.tok.added_tokens_decoder.get(token_id) if token_id is not None and not text else None
            return special.content if special else text

        tokens = []
        for entry in listed:
            ranked = sorted(entry.top, key=lambda c: -c[2])[:top_k] if top_k else []
            tokens.append(Token(known(entry.token_id, entry.text), entry.text,
                                math.exp(entry.logprob if entry.logprob is not None else 0.0),
                                [Candidate(known(i, t), named(i, t), math.exp(v)) for i, t, v in ranked]))
        return tokens

    @staticmethod
    def _fit(tokens: list[Token], text: str) -> list[Token]:
        """The tokens that write exactly `text`: the server lists the tokens of a stop string it
        cut from the text, and a token can straddle the cut (its piece is then shortened)."""
        kept, written = [], ""
        for token in tokens:
            if len(written) >= len(text):
                break
            piece = token.text[: len(text) - len(written)]
            kept.append(token if piece == token.text else Token(-1, piece, token.prob, token.top))
            written += piece
        return kept

    def _which_stop(self, prompt: str, text: str, stop: Sequence[str], top_k: int) -> tuple[str | None, list[Token]]:
        """After a reply that stopped: the stop string the model went on to write (and its tokens),
        or None when it ended its turn."""
        choice, _ = self._complete(prompt + text, PROBE, (), top_k)
        following = choice["text"]
        hit = next((s for s in stop if following.startswith(s)), None)
        if hit is None:
            return None, []
        return hit, self._fit(self._tokens(choice["logprobs"], top_k), hit)

    # -- the ChatModel interface -----------------------------------------------------------------

    def stream(self, messages: Sequence[dict], tools: Tools = None, *, prefix: str = "",
               max_new_tokens: int = 256, stop: Sequence[str] = (), top_k: int = 0,
               reuse_cache: bool = False, grammar: str | None = None) -> FinishedStream:
        """The whole reply, handed out as a stream (see the module's notes on what a server gives)."""
        prompt = self.render(messages, tools, prefix=prefix)
        return FinishedStream(self._generate(prompt, max_new_tokens, stop, top_k, grammar))

    def _generate(self, prompt: str, max_new_tokens: int, stop: Sequence[str] = (), top_k: int = 0,
                  grammar: str | None = None) -> Generation:
        held = (lark_to_gbnf(grammar), banned_tokens(grammar, self.special, self.end_of_turn)) if grammar else (None, ())
        choice, seconds = self._complete(prompt, max_new_tokens, stop, top_k, *held)
        text = choice["text"]
        listed = self._tokens(choice["logprobs"], top_k)
        tokens = self._fit(listed, text)
        reason: StopReason = "max_new_tokens" if choice.get("finish_reason") == "length" else "end_of_turn"
        hit = None
        if reason == "end_of_turn" and stop:
            # llama-cpp-python's server lists the tokens of the stop string it cut: then no probe is needed.
            written = "".join(t.text for t in listed)
            hit = next((s for s in stop if written.startswith(text + s)), None)
            if hit is not None:
                tokens = self._fit(listed, text + hit)  # a token may straddle the cut: fit them again
            else:
                hit, stop_tokens = self._which_stop(prompt, text, stop, top_k)
                tokens = tokens + stop_tokens
            if hit is not None:
                text, reason = text + hit, "stop_string"
        if grammar:
            self._check_held(grammar, tokens, text, complete=reason != "max_new_tokens")
        prompt_ids = self.encode(prompt)
        return Generation(prompt=prompt, prompt_ids=prompt_ids, token_ids=[t.token_id for t in tokens],
                          text=text, tokens=tokens, stop_reason=reason, stop_string=hit,
                          prefilled_tokens=len(prompt_ids), decode_seconds=seconds)

    def _check_held(self, grammar: str, tokens: list[Token], text: str, complete: bool) -> None:
        """Raise if the reply breaks the grammar (the server did not apply it); else mark which of
        each step's candidates the grammar allowed (the server lists the model's own top choices)."""
        ids = [t.token_id for t in tokens]
        if -1 in ids:  # a piece that is not one token: check the text, candidates stay unmarked
            complaint = grammar_complaint(self.tok, grammar, self.encode(text), complete)
        else:
            complaint = grammar_complaint(self.tok, grammar, ids, complete, [t.top for t in tokens])
        if complaint:
            raise ServerError(f"{self.url}: the reply breaks the grammar ({complaint}): {text[:120]!r}. Either the "
                              "server ignored it (llama.cpp's reads GBNF in the request's `grammar` field; others "
                              "may not), or, under \"auto\", llama.cpp let a <tool_call> token follow free text "
                              "(see kitchen.grammar.gbnf).")

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        """Not through a server: the completions API scores what the model writes, not a text we
        give it. Its `echo` option lists a prompt's tokens with scores, but llama-cpp-python 0.3.36
        pairs each echoed token with the next position's candidates (after "Hello there, my" the
        entry for " my" lists " name" first), so those numbers would be wrong here."""
        raise ServerError(f"{self.url}: an inference server does not score a given text; use a local model "
                          "(pack or hub) for log-probabilities of a continuation.")

    def generate_prompts(self, prompts: Sequence[str], *, max_new_tokens: int = 256,
                         grammars: Sequence[str | None] | None = None) -> list[Generation]:
        """All the prompts sent at once, one request each (each held to its grammar, if any):
        batching them is the server's job."""
        grammars = list(grammars or [None] * len(prompts))
        with ThreadPoolExecutor(max_workers=min(8, max(1, len(prompts)))) as pool:
            return list(pool.map(lambda pg: self._generate(pg[0], max_new_tokens, grammar=pg[1]), zip(prompts, grammars)))
