"""A transformers model running on this machine, behind the `ChatModel` interface.

Owns streaming (through `kitchen.generation.TokenStream`, with KV-cache reuse), batched replies
and log-probabilities. Does not choose or load weights (`kitchen.models`, `kitchen.loading`).
"""

from __future__ import annotations

import time
from typing import Any, Callable

import torch

from .chat_model import ModelInfo, TemplateChat
from .constraint import BatchMask, Constraint
from .generation import KVState, TokenStream
from .replies import Detokenizer, Generation, Token

DecodeStep = Callable[[Any, int, Any], torch.Tensor]  # (hf_model, token id, cache) -> next logits


class LiveModel(TemplateChat):
    """A transformers model running here, with greedy decoding and KV-cache reuse.

    `step`, when given, decodes one token instead of the transformers forward (the int8 fast
    mode's `kitchen.int8.decode_step`).
    """

    def __init__(self, hf_model: Any, tok: Any, info: ModelInfo, step: DecodeStep | None = None):
        self.hf_model, self.tok, self.info, self.step = hf_model, tok, info, step
        self.kv = KVState()

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False, grammar=None) -> TokenStream:
        """Stream a greedy reply, one `Token` per token. See `kitchen.generation.TokenStream`.

        `stop` strings end the reply (kept in its text); `top_k` > 0 records that many candidates
        per step. The KV cache of every call is kept; `reuse_cache=True` pre-fills only the tokens
        not already in it (the harness does this for the turns of one run). By default a call
        starts from an empty cache, so its reply depends on its prompt alone, not on what ran
        before (in the int8 fast mode, how a prompt is split between cache and pre-fill can
        change a reply: its activations are quantized per pre-fill). `grammar` (Lark text, see
        `kitchen.grammar`) holds every token of the reply to it.
        """
        prompt = self.render(messages, tools, prefix=prefix)
        if not reuse_cache:
            self.kv.clear()
        return TokenStream(self.hf_model, self.tok, prompt, self.encode(prompt),
                           max_new_tokens=max_new_tokens, stop=stop, end_ids=self.end_ids,
                           top_k=top_k, kv=self.kv, step=self.step,
                           constraint=self.constraint(grammar) if grammar else None)

    def constraint(self, grammar: str) -> Constraint:
        """A fresh grammar state for one reply of this model (see `kitchen.constraint`)."""
        return Constraint(self.tok, grammar, n_vocab=self.hf_model.config.vocab_size,
                          eos=self.tok.convert_tokens_to_ids("<|im_end|>"))

    def generate_prompts(self, prompts: list[str], *, max_new_tokens: int = 256,
                         grammars: list[str | None] | None = None) -> list[Generation]:
        """Greedy replies to rendered prompts, in one batch; each row may have a grammar.

        The prompts are padded on the left so that every row ends where its reply begins;
        transformers' `generate` runs the loop (a row's grammar masks its scores through
        `kitchen.constraint.BatchMask`). Greedy replies in a batch can differ in rare tokens from
        one-at-a-time replies (padding changes the floating-point sums).
        """
        batch = self.tok(prompts, return_tensors="pt", padding=True, padding_side="left",
                         add_special_tokens=False)
        end_ids = sorted(self.end_ids)
        mask, processors = None, None
        if grammars and any(grammars):
            from transformers import LogitsProcessorList  # imported here: a replayed chapter never needs it

            mask = BatchMask([self.constraint(g) if g else None for g in grammars], self.end_ids)
            processors = LogitsProcessorList([mask])
        t0 = time.perf_counter()
        with torch.inference_mode():
            out = self.hf_model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False,
                                         eos_token_id=end_ids, pad_token_id=self.tok.pad_token_id,
                                         output_scores=True, return_dict_in_generate=True,
                                         logits_processor=processors)
        seconds = time.perf_counter() - t0
        width = batch["input_ids"].shape[1]
        probs = torch.stack(out.scores, dim=1).float().softmax(-1)  # [batch, steps, vocab]
        gens = [self._row(prompt, out.sequences[row, width:].tolist(), probs[row], seconds)
                for row, prompt in enumerate(prompts)]
        for row in (mask.dead_ends if mask else ()):
            gens[row].stop_reason = "grammar_dead_end"
        return gens

    def _row(self, prompt: str, ids: list[int], probs: torch.Tensor, seconds: float) -> Generation:
        """One batch row as a `Generation`, cut after its end-of-turn token."""
        end_ids = self.end_ids
        ids = ids[:next((i + 1 for i, t in enumerate(ids) if t in end_ids), len(ids))]
        detok = Detokenizer(self.tok)
        tokens = [Token(t, "" if t in end_ids else detok.add(t), float(probs[i, t]))
                  for i, t in enumerate(ids)]
        prompt_ids = self.encode(prompt)
        return Generation(
            prompt=prompt, prompt_ids=prompt_ids, token_ids=ids, tokens=tokens,
            text=self.tok.decode([t for t in ids if t not in end_ids]),
            stop_reason="end_of_turn" if ids and ids[-1] in end_ids else "max_new_tokens",
            prefilled_tokens=len(prompt_ids), prefill_seconds=0.0, decode_seconds=seconds)

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        p_ids, c_ids = self.encode(prompt), self.encode(continuation)
        with torch.inference_mode():
            logits = self.hf_model(input_ids=torch.tensor([p_ids + c_ids])).logits[0].float()
        logp = torch.log_softmax(logits[len(p_ids) - 1:-1], dim=-1)
        return [(self.tok.decode([t]), float(logp[i, t])) for i, t in enumerate(c_ids)]
