"""Where the two llama.cpp servers answer the same completions request differently: the one place.

`kitchen.model.server.client.ServerModel` sends both the same request (`/v1/completions`, a raw
prompt, `logprobs`, `stop`, `grammar`, `logit_bias`); this module reads what comes back.

| | llama-cpp-python's server | llama.cpp's `llama-server` |
|---|---|---|
| requests at once | one; the rest queue | one per slot (`--parallel N`), batched together |
| a reply's `logprobs` | OpenAI's old lists: `tokens`, `token_logprobs`, `top_logprobs` (text -> log-probability) | `content`: one entry per token with its `id`, `token`, `logprob` and `top_logprobs` (each with `id`) |
| token ids | not sent (the client tokenizes each piece) | sent |
| special tokens among the candidates | all listed as `""` (one overwriting the other): dropped | listed as `""` with their ids: named by the client (`<|im_end|>`) |
| the end-of-turn token | not listed | listed last, as `""` (it writes no text: the client leaves it out) |
| the tokens of a cut stop string | still listed after the text | dropped with it (the client asks once more which stop string it was) |
| `/v1/models`: `owned_by` | `"me"` | `"llamacpp"` (`served_by` tells them apart) |
| several models | a config file; one loaded at a time, swapped per request | router mode: one process per model, all loaded (`--models-preset`) |

>>> [t.text for t in listed_tokens({"tokens": ["4", "2"], "token_logprobs": [-0.1, -0.2],
...                                 "top_logprobs": [{"4": -0.1, "": -3.0}, {"2": -0.2}]})]
['4', '2']
>>> listed_tokens({"content": [{"id": 19, "token": "4", "logprob": -0.1,
...                             "top_logprobs": [{"id": 19, "token": "4", "logprob": -0.1}]}]})[0].token_id
19
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Listed:
    """One token of a reply as a server lists it; `token_id` is None when it sends only the text."""

    token_id: int | None
    text: str
    logprob: float | None
    top: list[tuple[int | None, str, float]] = field(default_factory=list)  # (id, text, log-probability)


def listed_tokens(logprobs: dict) -> list[Listed]:
    """A reply's tokens with their candidates, from either server's `logprobs`. ValueError if it is
    neither shape (the caller turns that into a `ServerError` naming the server)."""
    if isinstance(logprobs.get("content"), list):  # llama-server
        return [Listed(entry.get("id"), entry["token"], entry.get("logprob"),
                       [(c.get("id"), c["token"], c["logprob"]) for c in entry.get("top_logprobs") or []])
                for entry in logprobs["content"]]
    tokens, scores = logprobs["tokens"], logprobs["token_logprobs"]  # llama-cpp-python
    if len(tokens) != len(scores):
        raise ValueError("tokens and log-probabilities do not match")
    tops = logprobs.get("top_logprobs") or [None] * len(tokens)
    # an entry "" names no token (every special token is listed so) and its score is not one token's
    return [Listed(None, piece, score, [(None, text, value) for text, value in (top or {}).items() if text])
            for piece, score, top in zip(tokens, scores, tops)]



def served_by(entry: dict) -> str:
    """Which server lists this `/v1/models` entry: "llama-server", "llama-cpp-python", or what
    its `owned_by` says (vLLM: "vllm"). Claims measured behind one server are checked on that one
    only: the two llama.cpp servers run the same GGUF file through different kernels, and a
    greedy reply can part at a near tie.

    >>> served_by({"id": "x", "owned_by": "llamacpp"}), served_by({"id": "x", "owned_by": "me"})
    ('llama-server', 'llama-cpp-python')
    """
    owner = str(entry.get("owned_by", "unknown"))
    return {"llamacpp": "llama-server", "me": "llama-cpp-python"}.get(owner, f"a server owned by {owner}")
