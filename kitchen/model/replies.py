"""What a model's reply is made of: tokens, candidates, the finished `Generation`.

Owns the reply's data and two small tools every model uses: `Detokenizer` (token ids to text,
piece by piece) and `FinishedStream` (a finished reply handed out as a stream). Does not run a
model (`kitchen.model.generation`) and imports no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Literal

# grammar_dead_end: a grammar (`kitchen.grammar.mask`) allowed no token at all.
StopReason = Literal["end_of_turn", "stop_string", "max_new_tokens", "grammar_dead_end"]


@dataclass
class Candidate:
    """One of the top-k tokens the model considered at a step."""

    token_id: int
    text: str
    prob: float
    allowed: bool | None = None  # under a grammar: False if the mask removed it; None: no grammar


@dataclass
class Token:
    """One generated token."""

    token_id: int
    text: str  # the text this token added to the reply (may be "" while a character is incomplete)
    prob: float  # the probability the model gave to this token
    top: list[Candidate] = field(default_factory=list)


@dataclass
class Generation:
    """A finished reply, with what it cost."""

    prompt: str
    prompt_ids: list[int]
    token_ids: list[int]
    text: str  # the reply; the end-of-turn token is not part of it
    tokens: list[Token]
    stop_reason: StopReason
    stop_string: str | None = None
    prefilled_tokens: int = 0  # prompt tokens actually computed (the rest came from the KV cache)
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    mask_seconds: float = 0.0  # of the decode time, what computing a grammar's masks took

    @property
    def new_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def reused_tokens(self) -> int:
        return len(self.prompt_ids) - self.prefilled_tokens

    @property
    def seconds(self) -> float:
        return self.prefill_seconds + self.decode_seconds

    def token_at(self, char_index: int) -> int:
        """Index of the token that wrote the character at `char_index` of `text`."""
        end = 0
        for i, token in enumerate(self.tokens):
            end += len(token.text)
            if end > char_index:
                return i
        raise IndexError(f"no token writes character {char_index} of a {len(self.text)}-character reply")

    @property
    def tokens_per_second(self) -> float:
        """Decode speed: tokens after the first, over the time they took."""
        n = len(self.token_ids) - 1
        return n / self.decode_seconds if n > 0 and self.decode_seconds > 0 else float("nan")


class Detokenizer:
    """Token ids to text, one piece per token: the piece is the text the token added.

    A character that spans several tokens (an emoji, most CJK) appears whole, with the token
    that completes it; the tokens before give "" (their partial decode ends in U+FFFD).

    Each step decodes a short window, from where the previous piece started, not the whole reply:
    decoding everything again made a reply's cost grow with the square of its length. The pieces are the same as the whole reply's decode cut up.
    """

    def __init__(self, tok: Any):
        self.tok, self.ids, self.text = tok, [], ""
        self._start = self._written = 0  # ids[_start:_written]: the last piece's tokens

    def add(self, token_id: int) -> str:
        """Append one token id; return the text it added."""
        self.ids.append(token_id)
        before = self.tok.decode(self.ids[self._start:self._written])
        after = self.tok.decode(self.ids[self._start:])
        if after.endswith("\ufffd") or len(after) <= len(before):  # a split character: wait for the rest
            return ""
        piece = after[len(before):]
        self._start, self._written = self._written, len(self.ids)
        self.text += piece
        return piece


class FinishedStream:
    """A finished `Generation` used like a live stream: iterate for tokens, `run()` for the reply."""

    def __init__(self, generation: Generation):
        self._generation = generation
        self.result: Generation | None = None

    def __iter__(self) -> Iterator[Token]:
        yield from self._generation.tokens
        self.result = self._generation

    def run(self) -> Generation:
        self.result = self._generation
        return self._generation
