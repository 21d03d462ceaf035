"""float32 linear layers on oneDNN: the same products as nn.Linear, the same greedy replies."""

import copy

import pytest
import torch
from torch import nn

from kitchen.model.interface import ModelInfo
from kitchen.model.live import LiveModel
from kitchen.model.weights import _live
from kitchen.model.engines.onednn import OneDNNLinear, use_onednn
from kitchen.model.tokenizer import offline_tokenizer
from tiny import tiny_hf_model

pytestmark = pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="this PyTorch has no oneDNN")


@pytest.mark.parametrize("bias", [True, False])
def test_same_product_as_nn_linear(bias):
    torch.manual_seed(1)
    dense = nn.Linear(64, 48, bias=bias)
    x = torch.randn(2, 7, 64)
    with torch.inference_mode():
        assert torch.allclose(OneDNNLinear(dense)(x), dense(x), atol=1e-5)
        assert torch.allclose(OneDNNLinear(dense)(x[:, -1]), dense(x[:, -1]), atol=1e-5)  # one row, as in decoding
        assert torch.equal(OneDNNLinear(dense).to_linear()(x), dense(x))  # and back to MKL


def test_the_weight_is_read_in_place_with_the_same_product_as_a_onednn_copy():
    torch.manual_seed(2)
    dense = nn.Linear(96, 80)
    layer = OneDNNLinear(dense)
    assert layer.weight.data_ptr() == dense.weight.data_ptr()  # no copy of the weights
    x = torch.randn(3, 5, 96)
    with torch.inference_mode():
        for rows in (x, x[:, -1]):  # a pre-fill, and one row per sequence as in decoding
            flat = rows.reshape(-1, 96)
            copied = torch._C._nn.mkldnn_linear(flat.to_mkldnn(), dense.weight.detach().to_mkldnn(),
                                                dense.bias.detach().to_mkldnn()).to_dense()
            assert torch.equal(layer(rows).reshape(-1, 80), copied)


def test_every_float32_linear_is_swapped_and_replies_are_the_same():
    tok, info = offline_tokenizer("0.5b"), ModelInfo("0.5b", "tiny", "pack", "tests/tiny.py", "float32")
    plain = LiveModel(copy.deepcopy(tiny_hf_model()), tok, info)
    swapped = _live(copy.deepcopy(tiny_hf_model()), tok, info)  # how a float32 model is loaded
    linears = [m for m in plain.hf_model.modules() if type(m) is nn.Linear]
    assert linears and not any(type(m) is nn.Linear for m in swapped.hf_model.modules())
    assert sum(isinstance(m, OneDNNLinear) for m in swapped.hf_model.modules()) == len(linears)
    messages = [{"role": "user", "content": "What is 1234 × 5678?"}]
    a = plain.generate(messages, max_new_tokens=12, top_k=3)
    b = swapped.generate(messages, max_new_tokens=12, top_k=3)
    assert a.token_ids == b.token_ids
    assert [t.prob for t in a.tokens] == pytest.approx([t.prob for t in b.tokens], rel=1e-4)


def test_other_dtypes_are_left_alone():
    model = nn.Sequential(nn.Linear(4, 4).to(torch.bfloat16), nn.Linear(4, 4))
    assert use_onednn(model) == 1 and type(model[0]) is nn.Linear and isinstance(model[1], OneDNNLinear)
