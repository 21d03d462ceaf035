"""A stand-in model for the strict tests: it wants to write a given text, and a grammar holds it.

`GrammarWalker` is a scripted model that *obeys a grammar the way a live model does*: at each step
it takes the next token of the text it wants if the grammar allows it; from the first token the
grammar refuses, it writes whatever the grammar allows, preferring the tokens that close what is
open (a quote, a brace, the end of the turn), so the reply ends. The grammar is chapter 07's, as
the server built it, applied with llguidance over the real Qwen2.5 tokenizer: a test of the server's
strict path with no model. Its replies are never shown as a model's.
"""

from __future__ import annotations

import random

import llguidance
import numpy as np

from kitchen.grammar.mask import _ll_tokenizer
from kitchen.model.interface import ModelInfo, TemplateChat
from kitchen.model.replies import Detokenizer, FinishedStream, Generation, Token
from kitchen.model.tokenizer import offline_tokenizer

CLOSERS = ['"', "}", "]", '"}', "}}", ", ", "0", "1", "true", "null", '"a"', "a"]


class GrammarWalker(TemplateChat):
    """Writes `wanted[i]` on call i, as far as the grammar (if any) allows."""

    def __init__(self, wanted: list[str], seed: int = 0):
        self.wanted = list(wanted)
        self.calls = 0
        self.rng = random.Random(seed)
        self.tok = offline_tokenizer("0.5b")
        self.eos = self.tok.convert_tokens_to_ids("<|im_end|>")
        self.closers = [ids[0] for ids in (self.encode(c) for c in CLOSERS) if len(ids) == 1]
        self.info = ModelInfo("0.5b", "grammar walker", "scripted", "tests: wanted text held to a grammar",
                              "none", engine="script")

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False, grammar=None) -> FinishedStream:
        prompt = self.render(messages, tools, prefix=prefix)
        wanted = self.wanted[self.calls] if self.calls < len(self.wanted) else ""
        self.calls += 1
        ids = self.walk(self.encode(wanted) + [self.eos], grammar, max_new_tokens)
        ended = bool(ids) and ids[-1] == self.eos
        body = ids[:-1] if ended else ids
        detok = Detokenizer(self.tok)
        tokens = [Token(i, detok.add(i), 1.0) for i in body] + ([Token(self.eos, "", 1.0)] if ended else [])
        prompt_ids = self.encode(prompt)
        return FinishedStream(Generation(
            prompt=prompt, prompt_ids=prompt_ids, token_ids=ids, text="".join(t.text for t in tokens),
            tokens=tokens, stop_reason="end_of_turn" if ended else "max_new_tokens", prefilled_tokens=len(prompt_ids)))

    def walk(self, wanted: list[int], grammar: str | None, limit: int) -> list[int]:
        if grammar is None:
            return wanted[:limit]
        matcher = llguidance.LLMatcher(_ll_tokenizer(self.tok, len(self.tok), self.eos),
                                       llguidance.LLMatcher.grammar_from_lark(grammar), log_level=0)
        out: list[int] = []
        for token in wanted:
            if len(out) >= limit or matcher.validate_tokens([token]) != 1:
                break
            matcher.consume_token(token)
            out.append(token)
            if token == self.eos:
                return out
        while len(out) < limit and not matcher.is_stopped():
            token = self.next_allowed(matcher)
            matcher.consume_token(token)
            out.append(token)
            if token == self.eos:
                break
        return out

    def next_allowed(self, matcher: llguidance.LLMatcher) -> int:
        if matcher.is_accepting() and matcher.validate_tokens([self.eos]) == 1:
            return self.eos
        forced = matcher.compute_ff_tokens()
        if forced:
            return forced[0]
        closers = [t for t in self.closers if matcher.validate_tokens([t]) == 1]
        if closers and self.rng.random() < 0.8:
            return closers[0]
        mask = np.frombuffer(matcher.compute_bitmask(), dtype=np.uint32)
        allowed = np.flatnonzero(np.unpackbits(mask.view(np.uint8), bitorder="little"))
        allowed = allowed[allowed < len(self.tok)]
        return int(self.rng.choice(list(allowed)))
