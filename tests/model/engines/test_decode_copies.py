"""The int8-decode setting: float32 for a pre-fill (several tokens per row), int8 weights for a decode step."""

import copy

import pytest
import torch
from torch import nn

from kitchen.model.interface import DTYPES, ModelInfo
from kitchen.model.engines.quantized import decode_step
from kitchen.model.engines.decode_copies import FusedDecode, Int8DecodeLinear, quantize_rows, use_int8_decode
from kitchen.model.weights import _engine, _live, stored_dtype
from kitchen.model.engines.onednn import OneDNNLinear, use_onednn
from kitchen.model.tokenizer import offline_tokenizer
from tiny import lean_step_matches_forward, tiny_hf_model

pytestmark = pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="this PyTorch has no oneDNN")


def test_rows_are_quantized_to_127_steps_of_their_largest_weight():
    torch.manual_seed(0)
    weight = torch.randn(32, 64)
    q, scale = quantize_rows(weight)
    assert q.dtype == torch.int8 and q.abs().max() == 127 and scale.dtype == torch.bfloat16
    rebuilt = q.float() * scale.float()[:, None]
    assert (rebuilt - weight).abs().max() <= weight.abs().max() / 127  # half a step, and the scale's rounding


def test_several_tokens_are_exactly_float32_and_one_token_is_close():
    torch.manual_seed(1)
    full = OneDNNLinear(nn.Linear(256, 96))
    layer = Int8DecodeLinear(full)
    with torch.inference_mode():
        prefill = torch.randn(2, 7, 256)
        assert torch.equal(layer(prefill), full(prefill))  # a pre-fill: the float32 layer itself
        for step in (torch.randn(1, 1, 256), torch.randn(3, 1, 256)):  # one reply's step, a batch's step
            exact, fast = full(step), layer(step)
            assert not torch.equal(fast, exact)  # the decode step does go through the int8 copy
            assert (fast - exact).norm() / exact.norm() < 0.03


def test_the_setting_loads_the_float32_weights_and_announces_itself(tmp_path):
    assert "int8-decode" in DTYPES and stored_dtype("int8-decode") == "float32"
    assert "pre-fill" in _engine("int8-decode") and "int8 copy" in _engine("int8-decode")
    tok = offline_tokenizer("0.5b")
    info = ModelInfo("0.5b", "tiny", "pack", "tests/tiny.py", "int8-decode", _engine("int8-decode"))
    model = _live(copy.deepcopy(tiny_hf_model()), tok, info)  # how an int8-decode model is loaded
    layers = [m for m in model.hf_model.modules() if isinstance(m, Int8DecodeLinear)]
    assert layers and not any(type(m) is nn.Linear for m in model.hf_model.modules())
    assert "dtype: int8-decode" in model.describe()
    reply = model.generate([{"role": "user", "content": "What is 1234 × 5678?"}], max_new_tokens=8)
    assert len(reply.token_ids) == 8 and reply.prefilled_tokens > 1


def test_replies_stay_close_to_float32_on_a_tiny_model():
    tok = offline_tokenizer("0.5b")
    plain = _live(copy.deepcopy(tiny_hf_model()), tok, ModelInfo("0.5b", "tiny", "pack", "t", "float32"))
    fast = _live(copy.deepcopy(tiny_hf_model()), tok, ModelInfo("0.5b", "tiny", "pack", "t", "int8-decode"))
    messages = [{"role": "user", "content": "What is 1234 × 5678?"}]
    a = plain.generate(messages, max_new_tokens=1, top_k=5)
    b = fast.generate(messages, max_new_tokens=1, top_k=5)
    # The pre-fill is float32 in both; only the output layer's last row went through the int8 copy.
    assert a.token_ids == b.token_ids and a.tokens[0].prob == pytest.approx(b.tokens[0].prob, rel=0.02)


def test_only_onednn_layers_get_a_copy():
    model = nn.Sequential(OneDNNLinear(nn.Linear(32, 32)), nn.Linear(32, 32))
    assert use_int8_decode(model) == 1
    assert isinstance(model[0], Int8DecodeLinear) and type(model[1]) is nn.Linear


def test_a_decode_step_reads_one_byte_per_weight():
    layer = Int8DecodeLinear(OneDNNLinear(nn.Linear(64, 32)))
    assert layer.weight_bytes() == 32 * 64 + 32 * (2 + 4)  # the int8 weights, a bfloat16 scale and a bias per row


def test_the_copies_are_saved_once_and_read_back_the_same(tmp_path):
    saved = tmp_path / "copies.pt"
    made, read = copy.deepcopy(tiny_hf_model()), copy.deepcopy(tiny_hf_model())
    for model in (made, read):
        use_onednn(model)
    n = use_int8_decode(made, saved)
    assert saved.is_file() and n > 0
    saved_at = saved.stat().st_mtime_ns
    assert use_int8_decode(read, saved) == n and saved.stat().st_mtime_ns == saved_at  # read, not made again
    pairs = [(a, b) for a, b in zip(made.modules(), read.modules()) if isinstance(a, Int8DecodeLinear)]
    assert len(pairs) == n and all(torch.equal(a.qweight, b.qweight) and torch.equal(a.scale, b.scale)
                                   for a, b in pairs)


def test_a_damaged_copies_file_is_made_again(tmp_path):
    saved = tmp_path / "copies.pt"
    saved.write_bytes(b"not a torch file")
    model = copy.deepcopy(tiny_hf_model())
    use_onednn(model)
    assert use_int8_decode(model, saved) > 0
    assert torch.load(saved, weights_only=True)  # replaced by a whole file


def test_the_lean_decode_step_gives_the_transformers_forward_to_the_bit():
    tok = offline_tokenizer("0.5b")
    model = _live(copy.deepcopy(tiny_hf_model()), tok, ModelInfo("0.5b", "tiny", "pack", "t", "int8-decode"))
    assert model.step is decode_step and model.hf_model.model.layers[0].mlp.gate_up.sizes == (64, 64)
    assert lean_step_matches_forward(model, [{"role": "user", "content": "Hi"}])


def test_fused_layers_share_their_copies_and_give_the_same_numbers():
    torch.manual_seed(2)
    layers = [Int8DecodeLinear(OneDNNLinear(nn.Linear(64, n))) for n in (64, 16, 16)]
    x = torch.randn(1, 1, 64)
    with torch.inference_mode():
        apart = torch.cat([layer(x) for layer in layers], dim=-1)
        fused = FusedDecode(layers)
        assert torch.equal(fused.forward(x), apart)
        assert torch.equal(torch.cat([layer(x) for layer in layers], dim=-1), apart)
    assert layers[1].qweight.data_ptr() == fused.qweight[64:].data_ptr()  # a view, not a second copy
