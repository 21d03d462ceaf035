"""A tiny random Qwen2 model with the real tokenizer: the generation plumbing without a download."""

import copy
import functools
from types import SimpleNamespace

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from kitchen.model.interface import ModelInfo
from kitchen.model.live import LiveModel
from kitchen.model.tokenizer import offline_tokenizer


@functools.cache
def tiny_hf_model():
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=151936, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096)
    return Qwen2ForCausalLM(config).eval()


def tiny_model() -> LiveModel:
    info = ModelInfo("0.5b", "tiny-random-qwen2", "pack", "built from a config in tests/tiny.py", "float32")
    return LiveModel(tiny_hf_model(), offline_tokenizer("0.5b"), info)


class _NoCache:
    """A bigram model keeps no keys and values: nothing to crop."""

    def crop(self, n: int) -> None:
        pass


class TinyBigram(torch.nn.Module):
    """A random bigram model (each token's logits depend on the token before only), with the
    call signature of a transformers causal LM: the decode loop at a fraction of a millisecond a
    step, for property tests that need thousands of replies."""

    def __init__(self, vocab_size: int = 151936, width: int = 8):
        super().__init__()
        torch.manual_seed(0)
        self.config = Qwen2Config(vocab_size=vocab_size)
        self.embed = torch.nn.Embedding(vocab_size, width)
        self.head = torch.nn.Linear(width, vocab_size, bias=False)

    def forward(self, input_ids, cache=None, use_cache=True, logits_to_keep=0):
        last = input_ids[:, -1:]
        # A bigram model's logits depend on one token id: each row is computed once and kept
        # (reading the 4.8 MB head for every step was most of a step's time).
        logits = self._row(int(last)) if last.numel() == 1 else self.head(self.embed(last))
        return SimpleNamespace(logits=logits.clone(), cache=cache or _NoCache())  # a caller may change it

    @functools.lru_cache(maxsize=1024)  # 0.6 MB a row: the tokens a grammar lets through repeat a lot
    def _row(self, token_id: int) -> torch.Tensor:
        return self.head(self.embed(torch.tensor([[token_id]])))


def tiny_bigram_model() -> LiveModel:
    info = ModelInfo("0.5b", "tiny-random-bigram", "pack", "built in tests/tiny.py", "float32")
    return LiveModel(TinyBigram().eval(), offline_tokenizer("0.5b"), info)


def lean_step_matches_forward(model: LiveModel, messages: list[dict], steps: int = 12) -> bool:
    """Whether `model.step` gives the transformers forward's logits, to the bit, for `steps` greedy
    tokens after the rendered `messages` (each from its own copy of the pre-filled cache)."""
    hf = model.hf_model
    with torch.inference_mode():
        out = hf(input_ids=torch.tensor([model.encode(model.render(messages))]), use_cache=True, logits_to_keep=1)
        lean_cache, hf_cache = out.cache, copy.deepcopy(out.cache)
        token = int(out.logits[0, -1].argmax())
        for _ in range(steps):
            lean = model.step(hf, token, lean_cache)
            ref = hf(input_ids=torch.tensor([[token]]), cache=hf_cache, use_cache=True).logits[0, -1]
            if not torch.equal(lean, ref):
                return False
            token = int(lean.argmax())
    return True
