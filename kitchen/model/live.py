"""A transformers model running on this machine, behind the `ChatModel` interface.

Owns streaming (through `kitchen.model.generation.TokenStream`, with KV-cache reuse), batched replies
and log-probabilities. Does not choose or load weights (`kitchen.model.load`, `kitchen.model.weights`).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import torch

from kitchen.model.interface import ModelInfo, TemplateChat
from kitchen.grammar.mask import Constraint
from kitchen.model.generation import KVState, SystemTurn, TokenStream, common_prefix
from kitchen.model.replies import Detokenizer, Generation, Token

MIN_SHARED = 16  # the fewest shared prompt tokens pre-filled once for a whole batch
DecodeStep = Callable[[Any, int, Any], torch.Tensor]  # (hf_model, token id, cache) -> next logits


class LiveModel(TemplateChat):
    """A transformers model running here, with greedy decoding and KV-cache reuse.

    `step`, when given, decodes one token instead of the transformers forward (in int8 and
    int8-decode, `kitchen.model.engines.quantized.decode_step`). `keep_system_turn` (on by default) keeps the system turn's
    keys and values across calls (`kitchen.model.generation.SystemTurn`); off, a fresh call pre-fills
    its whole prompt in one pass.
    """

    def __init__(self, hf_model: Any, tok: Any, info: ModelInfo, step: DecodeStep | None = None):
        self.hf_model, self.tok, self.info, self.step = hf_model, tok, info, step
        self.kv = KVState()
        self.system_turn = SystemTurn(tok.convert_tokens_to_ids("<|im_end|>"))
        self.keep_system_turn = True

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False, grammar=None) -> TokenStream:
        """Stream a greedy reply, one `Token` per token. See `kitchen.model.generation.TokenStream`.

        `stop` strings end the reply (kept in its text); `top_k` > 0 records that many candidates
        per step. The KV cache of every call is kept; `reuse_cache=True` pre-fills only the tokens
        not already in it (the harness does this for the turns of one run). By default a call
        starts afresh: from the kept system turn (see `keep_system_turn`), or from an empty cache.
        Either way its reply depends on its prompt alone, not on what ran before (how a prompt is
        split between cache and pre-fill changes the last digits of the numbers, and in the int8
        fast mode sometimes a token: its activations are quantized per pre-fill). `grammar` (Lark
        text, see `kitchen.grammar.calls`) holds every token of the reply to it.
        """
        prompt = self.render(messages, tools, prefix=prefix)
        if not reuse_cache:
            self.kv.clear()
        return TokenStream(self.hf_model, self.tok, prompt, self.encode(prompt),
                           max_new_tokens=max_new_tokens, stop=stop, end_ids=self.end_ids,
                           top_k=top_k, kv=self.kv, step=self.step,
                           constraint=self.constraint(grammar) if grammar else None,
                           system=self.system_turn if self.keep_system_turn else None)

    def constraint(self, grammar: str) -> Constraint:
        """A fresh grammar state for one reply of this model (see `kitchen.grammar.mask`)."""
        return Constraint(self.tok, grammar, n_vocab=self.hf_model.config.vocab_size,
                          eos=self.tok.convert_tokens_to_ids("<|im_end|>"))

    def generate_prompts(self, prompts: list[str], *, max_new_tokens: int = 256,
                         grammars: list[str | None] | None = None) -> list[Generation]:
        """Greedy replies to rendered prompts, in one batch; each row may have a grammar.

        Pre-fill goes prompt by prompt, each from the KV cache of the start all the prompts share
        (a chat template's system text: computed once), so no row pays for another's padding.
        The rows' caches are then put side by side, padded on the left, and each step decodes one
        token for every row still writing; a row that has ended (its end-of-turn token, or a
        grammar dead end) leaves the batch. Greedy replies in a batch can differ in rare tokens
        from one-at-a-time replies (the batch's size changes the floating-point sums; in int8, the
        activations' scale).
        """
        rows = _BatchRows(self, prompts, grammars)
        t0 = time.perf_counter()
        with torch.inference_mode():
            prompt_ids = [self.encode(p) for p in prompts]
            cache, attention, logits = self._prefill_rows(prompt_ids)
            for step in range(max_new_tokens):
                next_ids = rows.choose(logits)
                keep = rows.still_writing()
                if step == max_new_tokens - 1 or not keep:
                    break
                if len(keep) < attention.shape[0]:
                    index = torch.tensor(keep)
                    cache.batch_select_indices(index)
                    attention, next_ids = attention[index], next_ids[index]
                    rows.keep(keep)
                attention = torch.cat([attention, attention.new_ones(attention.shape[0], 1)], dim=1)
                out = self.hf_model(input_ids=next_ids[:, None], attention_mask=attention,
                                    position_ids=attention.sum(-1, keepdim=True) - 1, cache=cache, use_cache=True)
                cache, logits = out.cache, out.logits[:, -1].float()
        seconds = time.perf_counter() - t0
        return [self._row(prompt, p_ids, ids, probs, seconds, dead_end)
                for prompt, p_ids, ids, probs, dead_end in zip(prompts, prompt_ids, rows.ids, rows.probs, rows.dead_ends)]

    def _prefill_rows(self, rows: list[list[int]]) -> tuple[Any, torch.Tensor, torch.Tensor]:
        """Pre-fill each row of token ids alone, after their shared start (pre-filled once); return
        the batch's KV cache (rows padded on the left), its attention mask and the next-token logits."""
        from transformers import DynamicCache  # imported here: a replayed chapter never needs it

        shared = min([common_prefix(rows[0], r) for r in rows[1:]] + [min(map(len, rows)) - 1]) if len(rows) > 1 else 0
        shared = shared if shared >= MIN_SHARED else 0  # a few shared tokens are not worth a forward pass
        start: list[tuple[torch.Tensor, torch.Tensor]] = []
        if shared:
            out = self.hf_model(input_ids=torch.tensor([rows[0][:shared]]), use_cache=True, logits_to_keep=1)
            start = [(layer.keys, layer.values) for layer in out.cache.layers]
        caches, logits = [], []
        for ids in rows:
            out = self.hf_model(input_ids=torch.tensor([ids[shared:]]), cache=DynamicCache(start) if start else None,
                                use_cache=True, logits_to_keep=1)
            caches.append([(layer.keys, layer.values) for layer in out.cache.layers])
            logits.append(out.logits[0, -1].float())
        width = max(len(r) for r in rows)
        pad = lambda t: torch.nn.functional.pad(t, (0, 0, width - t.shape[-2], 0))  # noqa: E731  (zeros on the left)
        merged = [(torch.cat([pad(c[i][0]) for c in caches]), torch.cat([pad(c[i][1]) for c in caches]))
                  for i in range(len(caches[0]))]
        attention = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows])
        return DynamicCache(merged), attention, torch.stack(logits)

    def _row(self, prompt: str, prompt_ids: list[int], ids: list[int], probs: list[float], seconds: float,
             dead_end: bool) -> Generation:
        """One batch row as a `Generation`."""
        end_ids = self.end_ids
        detok = Detokenizer(self.tok)
        tokens = [Token(t, "" if t in end_ids else detok.add(t), p) for t, p in zip(ids, probs)]
        ended = "grammar_dead_end" if dead_end else "end_of_turn" if ids and ids[-1] in end_ids else "max_new_tokens"
        return Generation(
            prompt=prompt, prompt_ids=prompt_ids, token_ids=ids, tokens=tokens,
            text=self.tok.decode([t for t in ids if t not in end_ids]), stop_reason=ended,
            prefilled_tokens=len(prompt_ids), prefill_seconds=0.0, decode_seconds=seconds)

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        p_ids, c_ids = self.encode(prompt), self.encode(continuation)
        with torch.inference_mode():
            logits = self.hf_model(input_ids=torch.tensor([p_ids + c_ids])).logits[0].float()
        logp = torch.log_softmax(logits[len(p_ids) - 1:-1], dim=-1)
        return [(self.tok.decode([t]), float(logp[i, t])) for i, t in enumerate(c_ids)]


class _BatchRows:
    """The rows of one batched greedy decode: each row's tokens, their probabilities, its grammar
    state, and which rows are still writing (`live` maps the batch's current rows to them)."""

    def __init__(self, model: LiveModel, prompts: list[str], grammars: list[str | None] | None):
        n = len(prompts)
        self.end_ids, self.eos = model.end_ids, model.tok.convert_tokens_to_ids("<|im_end|>")
        self.constraints = [model.constraint(g) if g else None for g in (grammars or [None] * n)]
        self.ids: list[list[int]] = [[] for _ in range(n)]
        self.probs: list[list[float]] = [[] for _ in range(n)]
        self.dead_ends = [False] * n
        self.live = list(range(n))

    def choose(self, logits: torch.Tensor) -> torch.Tensor:
        """The next token of each current row (most likely, among the allowed ones where a grammar
        holds the row); records it and its probability."""
        for i, row in enumerate(self.live):
            constraint = self.constraints[row]
            if constraint is None:
                continue
            allowed = constraint.allowed()
            if not bool(allowed.any()):  # the grammar allows nothing: the row ends here
                self.dead_ends[row] = True
                allowed = torch.zeros_like(allowed)
                allowed[self.eos] = True
            logits[i, : allowed.shape[0]].masked_fill_(~allowed, float("-inf"))
            logits[i, allowed.shape[0]:] = float("-inf")
        probs = logits.softmax(-1)
        next_ids = probs.argmax(-1)
        for i, row in enumerate(self.live):
            token = int(next_ids[i])
            if self.dead_ends[row]:
                continue  # a dead end's forced end is not part of its reply
            self.ids[row].append(token)
            self.probs[row].append(float(probs[i, token]))
            if token not in self.end_ids and self.constraints[row] is not None:
                self.constraints[row].consume(token)
        return next_ids

    def still_writing(self) -> list[int]:
        """Positions (in the current batch) of the rows that have not ended."""
        return [i for i, row in enumerate(self.live)
                if not self.dead_ends[row] and not (self.ids[row] and self.ids[row][-1] in self.end_ids)]

    def keep(self, positions: list[int]) -> None:
        self.live = [self.live[i] for i in positions]
