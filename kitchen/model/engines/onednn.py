"""float32 linear layers computed by oneDNN instead of the default BLAS (MKL).

PyTorch's CPU build multiplies float32 matrices with Intel's MKL, which on AMD processors can take a
slow generic path, and decoding multiplies each weight matrix by a single row. oneDNN, also inside
PyTorch, picks its kernels by the instructions the CPU has, whoever made it. `use_onednn` swaps
every `nn.Linear` of a float32 model for a `OneDNNLinear` holding the same weight tensor, not a
copy: oneDNN reads it in place, in PyTorch's own row-major layout
(`torch.ops.mkldnn._linear_pointwise`), so a load converts nothing (copying each weight into a
oneDNN tensor first, with `to_mkldnn`, wrote the same numbers in the same layout and made loads
much slower). Both give the same products to the bit (tests/model/engines/test_onednn.py). The
numbers are the same matrix product added up in another order: they differ from MKL's in the last
digits. The speed against MKL is measured by `scripts/benchmark.py --only onednn`, written to
docs/speed.md ("float32 on oneDNN against MKL").

Owns that swap. Does not load models (`kitchen.model.weights`) or touch int8 and bfloat16 models.
"""

from __future__ import annotations

import torch
from torch import nn


class OneDNNLinear(nn.Module):
    """`y = x @ W.T + b`, with W read in place by oneDNN.

    >>> layer = OneDNNLinear(nn.Linear(4, 3))
    >>> layer(torch.ones(2, 5, 4)).shape
    torch.Size([2, 5, 3])
    """

    def __init__(self, dense: nn.Linear):
        super().__init__()
        self.in_features, self.out_features = dense.in_features, dense.out_features
        # A float32 contiguous weight is kept as it is (loaded or memory-mapped): no copy.
        weight = dense.weight.detach().float().contiguous()
        bias = torch.zeros(self.out_features) if dense.bias is None else dense.bias.detach().float()
        self.register_buffer("weight", weight)
        self.register_buffer("bias", bias.contiguous())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, self.in_features).contiguous()
        y = torch.ops.mkldnn._linear_pointwise(rows, self.weight, self.bias, "none", [], "")
        return y.reshape(*x.shape[:-1], self.out_features)

    def to_linear(self) -> nn.Linear:
        """The same layer as a plain `nn.Linear` again (multiplied by PyTorch's default BLAS)."""
        dense = nn.Linear(self.in_features, self.out_features)
        dense.weight.data, dense.bias.data = self.weight.clone(), self.bias.clone()
        return dense

    def weight_bytes(self) -> int:
        """The bytes of weights (and bias) one call reads."""
        return 4 * (self.in_features + 1) * self.out_features


def use_onednn(hf_model: nn.Module) -> int:
    """Swap each float32 `nn.Linear` in `hf_model` for a `OneDNNLinear`, in place; returns how many.
    Does nothing where this PyTorch has no oneDNN."""
    if not torch.backends.mkldnn.is_available():
        return 0
    swaps = [(parent, name, child) for parent in hf_model.modules()
             for name, child in parent.named_children()
             if type(child) is nn.Linear and child.weight.dtype == torch.float32]
    for parent, name, child in swaps:
        setattr(parent, name, OneDNNLinear(child))
    return len(swaps)
