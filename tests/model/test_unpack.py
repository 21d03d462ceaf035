"""The GGUF file read tensor by tensor (kitchen.model.unpack) gives the numbers transformers' own
GGUF loader gives, to the bit: on a tiny Qwen2 GGUF file written here (no pack needed)."""

from pathlib import Path

import numpy as np
import pytest
import torch

from kitchen.model import unpack
from kitchen.model.engines import quantized

gguf = pytest.importorskip("gguf")
HIDDEN, FFN, HEADS, KV_HEADS, VOCAB, LAYERS = 64, 96, 4, 2, 96, 2


def write_tiny_gguf(path: Path) -> Path:
    """A random two-layer Qwen2 as llama.cpp names its tensors; the FFN in Q8_0, the rest in F32."""
    rng = np.random.default_rng(0)
    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_block_count(LAYERS)
    writer.add_context_length(256)
    writer.add_embedding_length(HIDDEN)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([f"t{i}" for i in range(VOCAB)])
    kv = HIDDEN // HEADS * KV_HEADS

    def add(name: str, *shape: int, q8: bool = False) -> None:
        data = (rng.standard_normal(shape) * 0.05).astype(np.float32)
        if q8:
            writer.add_tensor(name, gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q8_0),
                              raw_shape=data.shape[::-1] if False else None, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
        else:
            writer.add_tensor(name, data)

    add("token_embd.weight", VOCAB, HIDDEN)
    for i in range(LAYERS):
        add(f"blk.{i}.attn_norm.weight", HIDDEN)
        add(f"blk.{i}.attn_q.weight", HIDDEN, HIDDEN)
        add(f"blk.{i}.attn_q.bias", HIDDEN)
        add(f"blk.{i}.attn_k.weight", kv, HIDDEN)
        add(f"blk.{i}.attn_k.bias", kv)
        add(f"blk.{i}.attn_v.weight", kv, HIDDEN)
        add(f"blk.{i}.attn_v.bias", kv)
        add(f"blk.{i}.attn_output.weight", HIDDEN, HIDDEN)
        add(f"blk.{i}.ffn_norm.weight", HIDDEN)
        add(f"blk.{i}.ffn_gate.weight", FFN, HIDDEN, q8=True)
        add(f"blk.{i}.ffn_up.weight", FFN, HIDDEN, q8=True)
        add(f"blk.{i}.ffn_down.weight", HIDDEN, FFN, q8=True)
    add("output_norm.weight", HIDDEN)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory) -> Path:
    return write_tiny_gguf(tmp_path_factory.mktemp("gguf") / "tiny-qwen2.gguf")


def transformers_load(path: Path):
    """What transformers' own loader makes of the file (every tensor de-quantized first)."""
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32).eval()


def test_the_dense_model_is_transformers_own_to_the_bit(tiny_gguf):
    ours, theirs = unpack.load_dense(tiny_gguf, torch.float32, progress=False), transformers_load(tiny_gguf)
    a, b = ours.state_dict(), theirs.state_dict()
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert ours.lm_head.weight.data_ptr() == ours.model.embed_tokens.weight.data_ptr()  # tied, as in the file
    ids = torch.tensor([[1, 5, 9, 2]])
    assert torch.equal(ours(ids).logits, theirs(ids).logits)


def test_bfloat16_is_the_same_numbers_rounded(tiny_gguf):
    ours = unpack.load_dense(tiny_gguf, torch.bfloat16, progress=False)
    theirs = transformers_load(tiny_gguf).to(torch.bfloat16)
    assert all(torch.equal(x, y) for x, y in zip(ours.state_dict().values(), theirs.state_dict().values()))


@pytest.mark.parametrize("rows", [unpack.ROWS, 16])  # 16: big tensors de-quantized a block of rows at a time
def test_the_int8_model_is_the_one_quantized_from_transformers_load(tiny_gguf, rows, monkeypatch):
    monkeypatch.setattr(unpack, "ROWS", rows)
    ours = unpack.load_int8(tiny_gguf, progress=False)
    theirs = quantized.quantize(transformers_load(tiny_gguf))
    pairs = list(zip(quantized._installed(ours).items(), quantized._installed(theirs).items()))
    assert [a for (a, _), _ in pairs] == [b for _, (b, _) in pairs] and len(pairs) == 4 * LAYERS + 1
    for (_, mine), (_, other) in pairs:
        for (wa, ba), (wb, bb) in zip(mine.chunks(), other.chunks()):
            assert torch.equal(wa.int_repr(), wb.int_repr())
            assert torch.equal(wa.q_per_channel_scales(), wb.q_per_channel_scales())
            assert (ba is None and bb is None) or torch.equal(ba, bb)
    rest_a, rest_b = ours.state_dict(), theirs.state_dict()
    assert rest_a.keys() == rest_b.keys() and all(torch.equal(rest_a[k], rest_b[k]) for k in rest_a)


def test_a_file_that_lacks_a_layer_is_an_error_not_a_half_model(tiny_gguf, monkeypatch):
    real = unpack.tensors
    monkeypatch.setattr(unpack, "tensors", lambda *a, **k: (t for t in real(*a, **k) if "layers.1.mlp.up" not in t[0]))
    with pytest.raises(RuntimeError, match="1.gate_up"):
        unpack.load_int8(tiny_gguf, progress=False)


def test_the_int8_cache_loads_back_to_the_same_layers(tiny_gguf, tmp_path):
    made = unpack.load_int8(tiny_gguf, progress=False)
    quantized.save(made, tmp_path)
    made.config.save_pretrained(tmp_path)
    back = quantized.load(tmp_path)
    for (_, a), (_, b) in zip(quantized._installed(made).items(), quantized._installed(back).items()):
        for (wa, _), (wb, _) in zip(a.chunks(), b.chunks()):
            assert torch.equal(wa.int_repr(), wb.int_repr())
    ids = torch.tensor([[3, 1, 4, 1, 5]])
    assert torch.equal(made(ids).logits, back(ids).logits)
