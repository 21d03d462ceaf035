"""The int8 fast mode's linear layer (kitchen.model.engines.quantized), on small random matrices: no model needed."""

import pytest
import torch
import torch.nn.functional as F

from kitchen.model.engines import quantized
from kitchen.model.engines.quantized import Int8Linear


def layer(rows: int, cols: int, bias: bool = True):
    torch.manual_seed(rows + cols)
    w = torch.randn(rows, cols) * 0.05
    b = torch.randn(rows) * 0.1 if bias else None
    return w, b


def test_int8_linear_is_close_to_the_float_layer():
    w, b = layer(300, 128)
    x = torch.randn(4, 128)
    exact = F.linear(x, w, b)
    approx = Int8Linear(Int8Linear.quantize(w, b))(x)
    assert approx.shape == exact.shape
    assert (approx - exact).abs().max() < 0.02 * exact.abs().max()


def test_one_scale_per_row_keeps_a_small_row_exact_enough():
    w, b = layer(2, 64, bias=False)
    w[1] *= 1e-3  # a row a thousand times smaller than the other: a scale per tensor would flatten it
    approx = Int8Linear(Int8Linear.quantize(w, None))(torch.ones(1, 64))
    exact = F.linear(torch.ones(1, 64), w)
    assert abs(float(approx[0, 1] - exact[0, 1])) < 0.02 * abs(float(exact[0, 1])) + 1e-6


def test_slices_of_rows_give_the_same_numbers_as_one_matrix(monkeypatch):
    w, b = layer(100, 64)
    x = torch.randn(3, 64)
    whole = Int8Linear(Int8Linear.quantize(w, b))(x)
    monkeypatch.setattr(quantized, "CHUNK_ROWS", 32)
    chunks = Int8Linear.quantize(w, b)
    assert [c[0].shape[0] for c in chunks] == [32, 32, 32, 4]
    sliced = Int8Linear(chunks)
    assert sliced.out_features == 100
    assert torch.equal(sliced(x), whole)


@pytest.mark.parametrize("bias", [True, False])
def test_unpacked_slices_pack_again_to_the_same_layer(bias):
    w, b = layer(50, 32, bias)
    first = Int8Linear(Int8Linear.quantize(w, b))
    again = Int8Linear(first.chunks())
    x = torch.randn(2, 32)
    assert torch.equal(first(x), again(x))


def test_quantizing_slice_by_slice_gives_the_whole_matrix_numbers(monkeypatch):
    w, b = layer(100, 64)
    w[7] *= 40  # rows of very different sizes
    scale = (w.abs().amax(dim=1) / 127).clamp(min=1e-12).double()
    whole = torch.quantize_per_channel(w, scale, torch.zeros(100, dtype=torch.long), 0, torch.qint8)
    monkeypatch.setattr(quantized, "CHUNK_ROWS", 32)
    sliced = Int8Linear.quantize(w, b)
    assert torch.equal(torch.cat([q.int_repr() for q, _ in sliced]), whole.int_repr())
    assert torch.equal(torch.cat([q.q_per_channel_scales() for q, _ in sliced]), whole.q_per_channel_scales())
