"""A scripted model: it "writes" fixed replies, one per call, so every path of the harness can be
shown and tested on purpose. It is never presented as a model's output: its announcement says
that the replies are scripted.

>>> model = ScriptedModel(['{"name": "calculator", "arguments": {"expression": "2+2"}}', "4."])  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Sequence

from .generation import Generation, Token
from .models import ChatModel, ModelInfo
from .replay import ReplayStream, load_replay_tokenizer


class ScriptedModel(ChatModel):
    """Returns `replies` in order, tokenized with the real Qwen2.5 tokenizer; stop strings apply."""

    def __init__(self, replies: Sequence[str], tier: str = "0.5b"):
        self.replies = list(replies)
        self.calls = 0
        self.tok = load_replay_tokenizer(tier)
        self.info = ModelInfo(tier, "scripted replies", "scripted",
                              f"{len(self.replies)} replies written into the notebook or test",
                              "none", engine="script")

    def describe(self) -> str:
        return (f"Scripted model: {len(self.replies)} fixed replies, written by hand to show the "
                f"harness's paths; no model runs.")

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False) -> ReplayStream:
        prompt = self.render(messages, tools, prefix=prefix)
        text = self.replies[self.calls] if self.calls < len(self.replies) else "(the script has ended)"
        self.calls += 1
        stop_reason, stop_string = "end_of_turn", None
        for s in stop:
            if s in text:
                text = text[:text.index(s) + len(s)]
                stop_reason, stop_string = "stop_string", s
                break
        ids = self.encode(text)[:max_new_tokens]
        tokens, so_far = [], ""
        for i in range(len(ids)):
            full = self.tok.decode(ids[:i + 1])
            tokens.append(Token(ids[i], full[len(so_far):], 1.0))
            so_far = full
        if stop_reason == "end_of_turn":
            tokens.append(Token(self.tok.convert_tokens_to_ids("<|im_end|>"), "", 1.0))
        gen = Generation(prompt=prompt, prompt_ids=self.encode(prompt),
                         token_ids=[t.token_id for t in tokens], text=self.tok.decode(ids),
                         tokens=tokens, stop_reason=stop_reason, stop_string=stop_string,
                         prefilled_tokens=len(self.encode(prompt)))
        return ReplayStream(gen)
