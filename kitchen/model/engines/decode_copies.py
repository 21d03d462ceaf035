"""The int8-decode engine setting: the pre-fill in float32, each new token of a reply through int8 weights.

Writing a reply one token at a time reads every weight once per token, so on a CPU its speed is set
by the bytes of the weights: float32 reads four per weight, and on CPUs without VNNI or bfloat16
instructions float32 decoding already runs close to the memory's bound. Pre-fill is the other way
round: many tokens per weight read, bound by arithmetic, where float32 is the fastest these CPUs
have. So `Int8DecodeLinear` keeps both: the float32 layer (`kitchen.model.engines.onednn`) for a
call that brings several tokens per row (a pre-fill), and a copy of the weights in int8 (one scale
per output row) for a call that brings one token per row: each decode step (of one reply or of a
batch), and the output layer at the end of a pre-fill, which reads only the last token. Such a call
rounds the activations to bfloat16 and multiplies with torch's `_weight_int8pack_mm`. Its numbers
differ from float32's by about 1% per layer; the chapters' claims were checked on this setting
(`kitchen.claims`). How much faster it decodes here, and what it costs in memory, is measured by
`scripts/benchmark.py --only decode` and written to docs/speed.md ("Decode").

Owns that layer, `FusedDecode` (the layers that read the same input, as one product for a decode
step) and `use_int8_decode`, which installs both on a float32 model whose linear layers are already
on oneDNN. Its decode steps then run through `kitchen.model.engines.quantized.decode_step`, the int8 mode's lean step.
Does not load models (`kitchen.model.weights`).
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from kitchen.model.engines.onednn import OneDNNLinear

COPIES = "int8-decode-copies.pt"  # the int8 copies, saved next to the float32 weights they were made from


def quantize_rows(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """int8 weights and one bfloat16 scale per output row (`weight ≈ q * scale[:, None]`).

    >>> q, s = quantize_rows(torch.tensor([[1.0, -0.5], [2.0, 0.0]]))
    >>> q.tolist(), s.float().tolist()
    ([[127, -64], [127, 0]], [0.00787353515625, 0.0157470703125])
    """
    scale = weight.abs().amax(dim=1).clamp(min=1e-12) / 127
    q = torch.round(weight / scale[:, None]).clamp(-127, 127).to(torch.int8).contiguous()
    return q, scale.to(torch.bfloat16)


class Int8DecodeLinear(nn.Module):
    """A float32 oneDNN layer, with an int8 copy of its weights for single-token calls.

    >>> layer = Int8DecodeLinear(OneDNNLinear(nn.Linear(32, 3)))
    >>> layer(torch.ones(1, 1, 32)).shape, layer(torch.ones(2, 5, 32)).shape
    (torch.Size([1, 1, 3]), torch.Size([2, 5, 3]))
    >>> Int8DecodeLinear(OneDNNLinear(nn.Linear(4, 3)))
    Traceback (most recent call last):
    ...
    ValueError: int8-decode needs a layer's input width to be a multiple of 32; this one has 4
    """

    def __init__(self, full: OneDNNLinear, copy: tuple[torch.Tensor, torch.Tensor] | None = None):
        super().__init__()
        # On an AVX-512 CPU torch's int8 kernel crashed the process (segfault) for input widths 4, 8,
        # 20 and 40, and never for multiples of 32; Qwen2.5's widths are all multiples of 32.
        if full.in_features % 32:
            raise ValueError("int8-decode needs a layer's input width to be a multiple of 32; "
                             f"this one has {full.in_features}")
        self.full = full
        self.in_features, self.out_features = full.in_features, full.out_features
        qweight, scale = copy if copy is not None else quantize_rows(full.weight)
        self.register_buffer("qweight", qweight)
        self.register_buffer("scale", scale)
        self.register_buffer("bias32", full.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() < 2 or x.shape[-2] != 1:  # several tokens per row: a pre-fill
            return self.full(x)
        return _int8_product(x, self.qweight, self.scale, self.bias32)

    def weight_bytes(self) -> int:
        """The bytes of weights (int8), scales and bias one decode step reads."""
        return self.out_features * (self.in_features + 2 + 4)


def _int8_product(x: torch.Tensor, qweight: torch.Tensor, scale: torch.Tensor, bias32: torch.Tensor) -> torch.Tensor:
    """`x @ (qweight * scale).T + bias32`, with `x` rounded to bfloat16: one decode step's product."""
    rows = x.reshape(-1, x.shape[-1]).to(torch.bfloat16).contiguous()
    y = torch.ops.aten._weight_int8pack_mm(rows, qweight, scale).float() + bias32
    return y.reshape(*x.shape[:-1], qweight.shape[0])


class FusedDecode:
    """`Int8DecodeLinear` layers that read the same input (q/k/v, gate/up) as one product per decode step.

    Their int8 copies become row slices of one matrix (no second copy), so a decode step makes one
    kernel call where it made two or three. Each output is the same sum over the same input, so the
    numbers are the same to the bit (tested); a decode step of the 0.5B takes about 4% less time.
    """

    def __init__(self, layers: list[Int8DecodeLinear]):
        self.sizes = tuple(layer.out_features for layer in layers)
        self.qweight, self.scale, self.bias32 = (torch.cat([getattr(layer, name) for layer in layers])
                                                 for name in ("qweight", "scale", "bias32"))
        start = 0
        for layer, n in zip(layers, self.sizes):
            layer.qweight, layer.scale, layer.bias32 = (t[start:start + n] for t in
                                                        (self.qweight, self.scale, self.bias32))
            start += n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The layers' outputs side by side (split them with `self.sizes`)."""
        return _int8_product(x, self.qweight, self.scale, self.bias32)


def _fuse(hf_model: nn.Module) -> None:
    """Give each decoder layer the `qkv`/`sizes` and `gate_up` that `kitchen.model.engines.quantized.decode_step` calls."""
    for layer in getattr(getattr(hf_model, "model", None), "layers", []):
        attn, mlp = layer.self_attn, layer.mlp
        attn.qkv = FusedDecode([attn.q_proj, attn.k_proj, attn.v_proj])
        attn.sizes = attn.qkv.sizes
        mlp.gate_up = FusedDecode([mlp.gate_proj, mlp.up_proj])


def use_int8_decode(hf_model: nn.Module, saved: Path | None = None) -> int:
    """Give each `OneDNNLinear` of `hf_model` an int8 copy for decode steps, in place; returns how many.

    With `saved`, the copies are read from that file, or made and written there the first time
    (making them reads every weight several times; reading them back reads each once).
    """
    swaps = [(parent, f"{prefix}.{name}".lstrip("."), name, child)
             for prefix, parent in hf_model.named_modules()
             for name, child in parent.named_children() if isinstance(child, OneDNNLinear)]
    copies: dict[str, torch.Tensor] = {}
    if saved is not None and saved.is_file():
        try:
            copies = torch.load(saved, mmap=True, weights_only=True)
        except Exception:  # a damaged file: make the copies again and replace it
            copies = {}
    fresh = not all(f"{path}.q" in copies and f"{path}.scale" in copies for _, path, _, _ in swaps)
    for parent, path, name, child in swaps:
        copy = None if fresh else (copies[f"{path}.q"], copies[f"{path}.scale"])
        setattr(parent, name, Int8DecodeLinear(child, copy))
    if saved is not None and fresh:
        made = {}
        for parent, path, name, _ in swaps:
            layer = getattr(parent, name)
            made[f"{path}.q"], made[f"{path}.scale"] = layer.qweight, layer.scale
        partial = saved.with_suffix(".partial")
        torch.save(made, partial)
        partial.replace(saved)
    _fuse(hf_model)
    return len(swaps)
