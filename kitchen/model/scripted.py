"""A scripted model: it "writes" fixed replies, one per call, so every path of the harness can be
shown and tested on purpose. It is never presented as a model's output: its announcement says
that the replies are scripted.

>>> model = ScriptedModel(['{"name": "calculator", "arguments": {"expression": "2+2"}}', "4."])
>>> model.generate([{"role": "user", "content": "2+2?"}]).text
'{"name": "calculator", "arguments": {"expression": "2+2"}}'
>>> model.generate([{"role": "user", "content": "2+2?"}]).stop_reason
'end_of_turn'
"""

from __future__ import annotations

from typing import Sequence

from kitchen.model.interface import ModelInfo, TemplateChat
from kitchen.model.replies import Detokenizer, FinishedStream, Generation, StopReason, Token
from kitchen.model.tokenizer import offline_tokenizer


class ScriptedModel(TemplateChat):
    """Returns `replies` in order, tokenized with the real Qwen2.5 tokenizer; stop strings apply."""

    def __init__(self, replies: Sequence[str], tier: str = "0.5b"):
        self.replies = list(replies)
        self.calls = 0
        self.tok = offline_tokenizer(tier)
        self.info = ModelInfo(tier, "scripted replies", "scripted",
                              f"{len(self.replies)} replies written into the notebook or test",
                              "none", engine="script")

    def describe(self) -> str:
        return (f"Scripted model: {len(self.replies)} fixed replies, written by hand to show the "
                f"harness's paths; no model runs.")

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False, grammar=None) -> FinishedStream:
        if grammar:
            raise ValueError("A scripted model writes fixed replies; no grammar can hold them. "
                             "Use a live model (or a replay of one) for tool_choice.")
        prompt = self.render(messages, tools, prefix=prefix)
        text = self.replies[self.calls] if self.calls < len(self.replies) else "(the script has ended)"
        self.calls += 1
        stop_reason: StopReason = "end_of_turn"
        stop_string = None
        for s in stop:
            if s in text:
                text = text[:text.index(s) + len(s)]
                stop_reason, stop_string = "stop_string", s
                break
        ids = self.encode(text)
        if len(ids) > max_new_tokens:
            ids, stop_reason, stop_string = ids[:max_new_tokens], "max_new_tokens", None
        detok = Detokenizer(self.tok)
        tokens = [Token(i, detok.add(i), 1.0) for i in ids]
        if stop_reason == "end_of_turn":
            tokens.append(Token(self.tok.convert_tokens_to_ids("<|im_end|>"), "", 1.0))
        prompt_ids = self.encode(prompt)
        return FinishedStream(Generation(
            prompt=prompt, prompt_ids=prompt_ids, token_ids=[t.token_id for t in tokens],
            text=self.tok.decode(ids), tokens=tokens, stop_reason=stop_reason,
            stop_string=stop_string, prefilled_tokens=len(prompt_ids)))
