"""A tiny random Qwen2 model with the real tokenizer: the generation plumbing without a download."""

import functools

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

from kitchen.chat_model import ModelInfo
from kitchen.live_model import LiveModel
from kitchen.tokenizer import offline_tokenizer


@functools.cache
def tiny_hf_model():
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=151936, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096)
    return Qwen2ForCausalLM(config).eval()


def tiny_model() -> LiveModel:
    info = ModelInfo("0.5b", "tiny-random-qwen2", "pack", "built from a config in tests/tiny.py", "float32")
    return LiveModel(tiny_hf_model(), offline_tokenizer("0.5b"), info)
