"""A grammar applied to a model's next-token choices: which tokens may come next, step by step.

`Constraint` compiles a grammar (`kitchen.grammar.calls`) with llguidance against the model's own
tokenizer, then, at each decode step, gives the mask of allowed token ids and is told the token
chosen. The decode loop (`kitchen.model.generation.TokenStream`) does the rest: it keeps the model's
most likely *allowed* token. Compiling happens once per grammar (cached); `compile_seconds` says
what it cost.

Owns the llguidance matcher and the mask. Does not build grammars or pick tokens.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import llguidance
import llguidance.hf
import llguidance.numpy  # not llguidance.torch: importing that one starts torch.compile's machinery (seconds)
import torch

from kitchen.grammar.calls import GrammarError

_SHIFTS = torch.arange(32, dtype=torch.int32)


@functools.lru_cache(maxsize=8)
def _placeholders(tok: Any, n_vocab: int) -> torch.Tensor:
    """True at the ids that are only padding of the output layer (the pack names them [PADnnnnn])."""
    names = tok.convert_ids_to_tokens(list(range(n_vocab)))
    return torch.tensor([n is None or (n.startswith("[PAD") and n.endswith("]")) for n in names])


@functools.lru_cache(maxsize=8)
def _ll_tokenizer(tok: Any, n_vocab: int, eos: int) -> llguidance.LLTokenizer:
    """llguidance's view of a Hugging Face tokenizer (about a second to build, so kept)."""
    return llguidance.hf.from_tokenizer(tok, n_vocab=n_vocab, eos_token=eos)


class Constraint:
    """One reply's grammar state: `allowed()` before each step, `consume(id)` after it.

    `n_vocab` is the size of the model's output layer (Qwen2.5 pads it past the tokenizer's
    151,665 tokens; the padding ids are never allowed); `eos` is the end-of-turn token, which
    the grammar allows once the reply is complete.
    """

    def __init__(self, tok: Any, grammar: str, *, n_vocab: int, eos: int):
        t0 = time.perf_counter()
        lark = llguidance.LLMatcher.grammar_from_lark(grammar)
        self.matcher = llguidance.LLMatcher(_ll_tokenizer(tok, n_vocab, eos), lark, log_level=0)
        if self.matcher.is_error():
            raise GrammarError(f"The grammar does not compile: {self.matcher.get_error()}")
        self.compile_seconds = time.perf_counter() - t0
        self.grammar, self.n_vocab, self.eos = grammar, n_vocab, eos
        self._bits = llguidance.numpy.allocate_token_bitmask(1, n_vocab)
        self._row = torch.from_numpy(self._bits[0])  # the same memory, read as a tensor
        self._never = _placeholders(tok, n_vocab)
        self.mask_seconds = 0.0  # time spent computing masks, summed over the reply

    @classmethod
    def for_tokenizer(cls, tok: Any, grammar: str) -> "Constraint":
        """A grammar state over a tokenizer alone (no model needed: a replay has one too).

        >>> from kitchen.model.tokenizer import offline_tokenizer
        >>> c = Constraint.for_tokenizer(offline_tokenizer("0.5b"), 'start: "Hi"')
        >>> int(c.allowed().sum()) > 0
        True
        """
        return cls(tok, grammar, n_vocab=len(tok), eos=tok.convert_tokens_to_ids("<|im_end|>"))

    def allowed(self) -> torch.Tensor:
        """A bool tensor over the vocabulary: True where the grammar allows the token next."""
        t0 = time.perf_counter()
        llguidance.numpy.fill_next_token_bitmask(self.matcher, self._bits)
        allowed = ((self._row.unsqueeze(1) >> _SHIFTS) & 1).bool().flatten()[: self.n_vocab]
        allowed &= ~self._never
        self.mask_seconds += time.perf_counter() - t0
        return allowed

    def consume(self, token_id: int) -> None:
        if not self.matcher.consume_token(token_id):
            raise GrammarError(f"Token {token_id} is not allowed here: {self.matcher.get_error()}")

    @property
    def finished(self) -> bool:
        """The grammar is complete and allows nothing but the end of the reply."""
        return self.matcher.is_stopped()


def grammar_complaint(tok: Any, grammar: str, token_ids: list[int], complete: bool = True,
                      candidates: list[list] | None = None) -> str:
    """Why a reply's tokens break `grammar` ("" when they keep to it; a reply cut short by the
    token limit keeps to it when it is a start the grammar allows, so `complete=False`).
    `candidates` (a list per token, of `Candidate`s): each is marked allowed or not by the mask
    at its step, as the decode loop marks them (for a reply held by a server).

    >>> from kitchen.model.tokenizer import offline_tokenizer
    >>> tok = offline_tokenizer("0.5b")
    >>> grammar_complaint(tok, 'start: "Hi"', tok.encode("Hi")), bool(grammar_complaint(tok, 'start: "Hi"', tok.encode("Ho")))
    ('', True)
    """
    constraint = Constraint.for_tokenizer(tok, grammar)
    for position, token_id in enumerate(token_ids):
        if candidates is not None:
            allowed = constraint.allowed()
            for c in candidates[position]:
                c.allowed = bool(allowed[c.token_id]) if 0 <= c.token_id < len(allowed) else None
        if not constraint.matcher.consume_token(token_id):
            return f"token {position} ({tok.decode([token_id])!r}) is not allowed there"
    if complete and not constraint.matcher.is_accepting():
        return "the reply ends before the grammar allows it to"
    return ""
