"""Greedy generation, one token at a time, written out so every step can be watched.

`TokenStream` runs the decode loop: pre-fill the prompt (only the tokens not already in the
KV cache; a fresh start begins from the kept system turn, see `SystemTurn`), then pick the most likely token, append it, repeat. Each step yields a `Token` with the
token, the text it added, its probability and, on request, the top-k candidates. The loop stops at
the end of the turn, at a stop string (such as `</tool_call>`) or at `max_new_tokens`; the finished
run is a `Generation`.

Owns the decode loop and the KV state kept between calls. Does not sample (greedy only, so every
run repeats), batch (`LiveModel.generate_prompts`) or load a model
(`kitchen.model.load`); the reply's data types live in `kitchen.model.replies`.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import torch

from kitchen.model.replies import Candidate, Detokenizer, Generation, StopReason, Token

if TYPE_CHECKING:
    from kitchen.grammar.mask import Constraint


@dataclass
class KVState:
    """The token ids whose keys and values are in `cache`, kept between calls for reuse."""

    ids: list[int] = field(default_factory=list)
    cache: Any = None

    def clear(self) -> None:
        self.ids, self.cache = [], None


@dataclass
class SystemTurn:
    """The keys and values of recent system turns, kept across calls (a prefix cache).

    With tools, Qwen's chat template puts the whole tools block in the system turn: about 1,000
    tokens for chapter 05's six tools, the same for every run with the same tools. A fresh call
    (no reuse of the previous call's cache) pre-fills its system turn alone, up to and including
    its first `end_id` (`<|im_end|>`), then the rest of the prompt. Each distinct system turn is
    computed once and copied from here afterwards (the last `keep` of them are kept). The numbers
    are the same either way, since the prompt is split at the same place whether its system turn
    came from here or was just computed: a reply depends on its prompt alone, never on what ran
    before.
    """

    end_id: int
    keep: int = 4
    kept: dict[tuple[int, ...], Any] = field(default_factory=dict)

    def seed(self, hf_model, prompt_ids: list[int], kv: KVState) -> int:
        """Fill the empty `kv` with the system turn of `prompt_ids`; return how many tokens were
        computed for it now (0 when it was kept, or when the prompt has no system turn to split off)."""
        if self.end_id not in prompt_ids[:-1]:
            return 0
        turn = tuple(prompt_ids[:prompt_ids.index(self.end_id) + 1])
        computed = 0
        if turn not in self.kept:
            out = hf_model(input_ids=torch.tensor([turn]), use_cache=True, logits_to_keep=1)
            self.kept[turn], computed = out.cache, len(turn)
            while len(self.kept) > self.keep:
                self.kept.pop(next(iter(self.kept)))  # the oldest goes first
        kv.ids, kv.cache = list(turn), copy.deepcopy(self.kept[turn])  # the stream extends its cache in place
        return computed


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the shared start of two id lists.

    >>> common_prefix([1, 2, 3], [1, 2, 4])
    2
    """
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class TokenStream:
    """Iterate to receive `Token`s as they are generated; `result` holds the `Generation` after.

    In a notebook: `stream = model.stream(messages)`, then `for step in stream: print(step.text,
    end="")`, then `stream.result.stop_reason` is "end_of_turn", "stop_string" or "max_new_tokens".
    """

    def __init__(self, hf_model, tok, prompt: str, prompt_ids: list[int], *, max_new_tokens: int,
                 stop: Sequence[str], end_ids: set[int], top_k: int, kv: KVState | None,
                 step: Callable[[Any, int, Any], torch.Tensor] | None = None,
                 constraint: Constraint | None = None, system: SystemTurn | None = None):
        self.hf_model, self.tok, self.step, self.constraint = hf_model, tok, step, constraint
        self.system = system
        self.prompt, self.prompt_ids = prompt, prompt_ids
        self.max_new_tokens, self.stop, self.end_ids = max_new_tokens, tuple(stop), end_ids
        self.top_k, self.kv = top_k, kv
        self.result: Generation | None = None

    def run(self) -> Generation:
        """Consume the stream and return the finished `Generation`."""
        for _ in self:
            pass
        assert self.result is not None
        return self.result

    def __iter__(self) -> Iterator[Token]:
        if self.result is not None:
            yield from self.result.tokens
            return
        with torch.inference_mode():
            yield from self._decode()

    def _prefill(self):
        """Run the prompt through the model; reuse the cached part when the KV state allows. A fresh
        start (empty KV state) begins from the system turn, when one is kept. Returns the logits, the
        cache and how many prompt tokens came from a cache (not computed in this call)."""
        kv, ids = self.kv, self.prompt_ids
        start, cache, computed = 0, None, 0
        if self.system is not None and kv is not None and kv.cache is None:
            computed = self.system.seed(self.hf_model, ids, kv)
        if kv is not None and kv.cache is not None:
            start = min(common_prefix(kv.ids, ids), len(ids) - 1)  # at least one token to compute
            if start > 0:
                cache = kv.cache
                if len(kv.ids) > start:
                    cache.crop(start - len(kv.ids))  # a negative count: drop that many from the end
            else:
                start = 0
            kv.clear()  # the cache is changed in place from here on; it is handed back at the end
        out = self.hf_model(input_ids=torch.tensor([ids[start:]]), cache=cache, use_cache=True,
                            logits_to_keep=1)
        return out.logits[0, -1], out.cache, start - computed

    def _decode(self) -> Iterator[Token]:
        """The loop: choose a token, yield it, test whether the reply is done, run it through the model."""
        t0 = time.perf_counter()
        logits, cache, reused = self._prefill()
        cached_ids = list(self.prompt_ids)
        prefill_seconds = time.perf_counter() - t0
        t1 = time.perf_counter()
        ids: list[int] = []
        tokens: list[Token] = []
        detok = Detokenizer(self.tok)
        stop: tuple[StopReason, str | None] = ("max_new_tokens", None)
        try:
            for _ in range(self.max_new_tokens):
                probs = torch.softmax(logits.float(), dim=-1)
                choice = self._choose(probs)
                if choice is None:  # the grammar allows no token at all
                    stop = ("grammar_dead_end", None)
                    break
                token_id, top = choice
                ids.append(token_id)
                end = token_id in self.end_ids
                piece = "" if end else detok.add(token_id)
                tokens.append(Token(token_id, piece, float(probs[token_id]), top))
                yield tokens[-1]
                if end:
                    stop = ("end_of_turn", None)
                    break
                if (hit := self._stop_string(detok.text, piece)) is not None:
                    stop = ("stop_string", hit)
                    break
                if len(ids) == self.max_new_tokens:
                    break
                logits, cache = self._next_logits(token_id, cache)
                cached_ids.append(token_id)
        finally:
            if self.kv is not None:
                self.kv.ids, self.kv.cache = cached_ids, cache
        self.result = self._finish(ids, tokens, stop, reused, prefill_seconds, time.perf_counter() - t1)

    def _stop_string(self, text: str, piece: str) -> str | None:
        """The stop string the newest piece completed, if any (looking only where it could end)."""
        return next((s for s in self.stop if s in text[-(len(piece) + len(s)):]), None)

    def _next_logits(self, token_id: int, cache: Any) -> tuple[torch.Tensor, Any]:
        """Run one token through the model: the next token's logits, and the cache that now holds it."""
        if self.step is not None:  # a lean one-token step (int8, int8-decode); it grows the cache in place
            return self.step(self.hf_model, token_id, cache), cache
        out = self.hf_model(input_ids=torch.tensor([[token_id]]), cache=cache, use_cache=True)
        return out.logits[0, -1], out.cache

    def _finish(self, ids: list[int], tokens: list[Token], stop: tuple[StopReason, str | None], reused: int,
                prefill_seconds: float, decode_seconds: float) -> Generation:
        """The whole reply: its text, why it stopped, and where its time went."""
        return Generation(
            prompt=self.prompt, prompt_ids=list(self.prompt_ids), token_ids=ids,
            text=self.tok.decode([i for i in ids if i not in self.end_ids]),
            tokens=tokens, stop_reason=stop[0], stop_string=stop[1],
            prefilled_tokens=len(self.prompt_ids) - reused, prefill_seconds=prefill_seconds,
            decode_seconds=decode_seconds,
            mask_seconds=self.constraint.mask_seconds if self.constraint else 0.0)

    def _choose(self, probs: torch.Tensor) -> tuple[int, list[Candidate]] | None:
        """The most likely token (allowed by the grammar, if any) and the top-k candidates.

        Candidates are the model's own top-k, before the mask; under a grammar each says whether
        it was allowed. None: the grammar allows nothing (a dead end).
        """
        allowed = self.constraint.allowed() if self.constraint is not None else None
        if allowed is not None and not bool(allowed.any()):
            return None
        masked = probs if allowed is None else probs.masked_fill(~allowed, -1.0)
        token_id = int(torch.argmax(masked))
        top = []
        if self.top_k:
            values, indices = torch.topk(probs, self.top_k)
            top = [Candidate(int(i), self.tok.decode([int(i)]), float(v),
                             None if allowed is None else bool(allowed[int(i)]))
                   for v, i in zip(values, indices)]
        if self.constraint is not None:
            self.constraint.consume(token_id)
        return token_id, top
