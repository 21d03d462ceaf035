"""The int8 fast mode: a Qwen2 model whose linear layers read int8 weights, and a lean decode step.

Decoding one token reads every weight once, so on a CPU its speed is set by the weights' bytes and
by the Python run per layer. `quantize` fuses q/k/v and gate/up into single layers and re-quantizes
every linear layer to int8 (one scale per output row; activations quantized on the fly by torch's
`quantized::linear_dynamic`); `save`/`load` cache the result; `decode_step` runs one token through
the layers without the transformers forward. Owns none of the choosing or loading (`kitchen.model.weights`).
"""

from __future__ import annotations

import functools
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from kitchen.model.engines.cpu import cpu_has_vnni

FILE = "int8-weights.pt"


@functools.cache
def _qwen2() -> ModuleType:
    """transformers' Qwen2 code, imported on first use (two seconds; a replayed chapter never needs it)."""
    from transformers.models.qwen2 import modeling_qwen2

    return modeling_qwen2


CHUNK_ROWS = 16_384  # the kernel packs a tall matrix (the 151,936-row head) much faster in slices


def activation_bits() -> int:
    """How many bits this CPU's int8 layers quantize activations to: 8 with VNNI, else 7 (see Int8Linear)."""
    return 8 if cpu_has_vnni() else 7


class Int8Linear(nn.Module):
    """`y = x W^T + b` with W in int8 (one scale per output row), packed once for this CPU.

    `chunks` are slices of W's rows (and of b), each a quantized int8 tensor; the outputs of the
    slices are concatenated, which gives the same numbers as one matrix (the activations are
    quantized the same way for every slice).
    """

    def __init__(self, chunks: list[tuple[torch.Tensor, torch.Tensor | None]], packed: list | None = None):
        super().__init__()
        self.in_features = chunks[0][0].shape[1]
        self.out_features = sum(w.shape[0] for w, _ in chunks)
        self.packed = packed if packed is not None else [torch.ops.quantized.linear_prepack(w, b) for w, b in chunks]
        # Activations are quantized to 8 bits where the CPU has VNNI; without it the kernel's 16-bit
        # intermediate sums could saturate, so it uses 7 bits, as torch's own dynamic Linear does.
        # The 8th bit matters: with 7-bit activations the 0.5B pack stopped calling tools in ch. 05.
        self.reduce_range = activation_bits() == 7

    @staticmethod
    def quantize(weight: torch.Tensor, bias: torch.Tensor | None) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """Per-row int8 quantization of a float weight, cut into slices of `CHUNK_ROWS` rows."""
        scale = (weight.abs().amax(dim=1) / 127).clamp(min=1e-12).double()
        zero = torch.zeros(weight.shape[0], dtype=torch.long)
        with warnings.catch_warnings():  # quantized tensors are deprecated in torch; its kernels are not
            warnings.simplefilter("ignore")
            q = torch.quantize_per_channel(weight.float(), scale, zero, 0, torch.qint8)
        slices = q.split(CHUNK_ROWS)
        return list(zip(slices, bias.split(CHUNK_ROWS) if bias is not None else [None] * len(slices)))

    def chunks(self) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        return [torch.ops.quantized.linear_unpack(p) for p in self.packed]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outs = [torch.ops.quantized.linear_dynamic(x, p, self.reduce_range) for p in self.packed]
        return outs[0] if len(outs) == 1 else torch.cat(outs, dim=-1)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8"


class FusedAttention(nn.Module):
    """Qwen2 attention with one projection for query, key and value (the sums of the original)."""

    def __init__(self, attn: Any, qkv: nn.Module, o_proj: nn.Module, sizes: tuple[int, ...]):
        super().__init__()
        self.config, self.layer_idx, self.head_dim = attn.config, attn.layer_idx, attn.head_dim
        self.scaling, self.sliding_window, self.is_causal = attn.scaling, attn.sliding_window, True
        self.num_key_value_groups, self.attention_dropout = attn.num_key_value_groups, 0.0
        self.qkv, self.o_proj, self.sizes = qkv, o_proj, sizes

    def project(self, hidden: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
        shape = (*hidden.shape[:-1], -1, self.head_dim)
        q, k, v = (t.view(shape).transpose(1, 2) for t in self.qkv(hidden).split(self.sizes, dim=-1))
        q, k = _qwen2().apply_rotary_pos_emb(q, k, cos, sin)
        return q, k, v

    def forward(self, hidden_states, position_embeddings, attention_mask, cache=None, **kwargs):
        q, k, v = self.project(hidden_states, *position_embeddings)
        if cache is not None:
            k, v = cache.update(k, v, self.layer_idx, kwargs=kwargs)
        qwen2 = _qwen2()
        attend = qwen2.ALL_ATTENTION_FUNCTIONS.get_interface(self.config._attn_implementation,
                                                             qwen2.eager_attention_forward)
        out, weights = attend(self, q, k, v, attention_mask, dropout=0.0, scaling=self.scaling,
                              sliding_window=self.sliding_window, **kwargs)
        return self.o_proj(out.reshape(*hidden_states.shape[:-1], -1).contiguous()), weights


class FusedMLP(nn.Module):
    """Qwen2 MLP with one projection for gate and up: `down(silu(gate) * up)`."""

    def __init__(self, gate_up: nn.Module, down_proj: nn.Module):
        super().__init__()
        self.gate_up, self.down_proj = gate_up, down_proj

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down_proj(F.silu(gate) * up)


def _weights(hf_model) -> dict[str, tuple[torch.Tensor, torch.Tensor | None]]:
    """Every linear layer's float weight and bias, with the fused layers already concatenated."""
    out = {}
    for i, layer in enumerate(hf_model.model.layers):
        a, m = layer.self_attn, layer.mlp
        out[f"{i}.qkv"] = (torch.cat([a.q_proj.weight, a.k_proj.weight, a.v_proj.weight]),
                           torch.cat([a.q_proj.bias, a.k_proj.bias, a.v_proj.bias]))
        out[f"{i}.o"] = (a.o_proj.weight, a.o_proj.bias)
        out[f"{i}.gate_up"] = (torch.cat([m.gate_proj.weight, m.up_proj.weight]), None)
        out[f"{i}.down"] = (m.down_proj.weight, None)
    out["lm_head"] = (hf_model.lm_head.weight, None)
    return out


def _install(hf_model, linears: dict[str, Int8Linear]) -> None:
    """Swap the model's layers for the fused int8 ones."""
    config = hf_model.config
    sizes = (config.num_attention_heads * hf_model.model.layers[0].self_attn.head_dim,
             *(2 * [config.num_key_value_heads * hf_model.model.layers[0].self_attn.head_dim]))
    for i, layer in enumerate(hf_model.model.layers):
        layer.self_attn = FusedAttention(layer.self_attn, linears[f"{i}.qkv"], linears[f"{i}.o"], sizes)
        layer.mlp = FusedMLP(linears[f"{i}.gate_up"], linears[f"{i}.down"])
    hf_model.lm_head = linears["lm_head"]
    hf_model.config.tie_word_embeddings = False  # the head is its own int8 copy now


def quantize(hf_model):
    """Turn a float32 transformers Qwen2 model into the int8 fast mode, in place; returns it."""
    with torch.no_grad():
        linears = {name: Int8Linear(Int8Linear.quantize(w.detach(), None if b is None else b.detach().float()))
                   for name, (w, b) in _weights(hf_model).items()}
    _install(hf_model, linears)
    return hf_model


def _installed(hf_model) -> dict[str, Int8Linear]:
    """The model's int8 layers under the names `_install` takes."""
    out = {"lm_head": hf_model.lm_head}
    for i, layer in enumerate(hf_model.model.layers):
        out |= {f"{i}.qkv": layer.self_attn.qkv, f"{i}.o": layer.self_attn.o_proj,
                f"{i}.gate_up": layer.mlp.gate_up, f"{i}.down": layer.mlp.down_proj}
    return out


def save(hf_model, folder: Path) -> None:
    """Cache the int8 weights (as int8 tensors with their scales) and the float rest in `folder`."""
    linears = {name: module.chunks() for name, module in _installed(hf_model).items()}
    torch.save({"linears": linears, "rest": hf_model.state_dict()}, folder / FILE)  # Int8Linear has no state


def load(folder: Path):
    """Build the fast-mode model from `save`'s file and the config next to it (no float32 copy)."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(folder)  # saved after `_install`: the head is not tied
    with warnings.catch_warnings():  # torch warns that quantized tensors and TypedStorage are deprecated
        warnings.simplefilter("ignore")
        state = torch.load(folder / FILE, weights_only=True, mmap=True)
        # Packing is the slow part of a warm load: spread the slices over the cores.
        jobs = [chunk for chunks in state["linears"].values() for chunk in chunks]
        with ThreadPoolExecutor(os.cpu_count()) as pool:
            packed = iter(list(pool.map(lambda chunk: torch.ops.quantized.linear_prepack(*chunk), jobs)))
    with torch.device("meta"):
        hf_model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    linears = {name: Int8Linear(chunks, [next(packed) for _ in chunks]) for name, chunks in state["linears"].items()}
    _install(hf_model, linears)
    hf_model.load_state_dict(state["rest"], strict=False, assign=True)
    hf_model.model.rotary_emb = type(hf_model.model.rotary_emb)(config)  # its buffers, made for real
    left = [n for n, t in [*hf_model.named_parameters(), *hf_model.named_buffers()] if t.is_meta]
    if left:
        raise RuntimeError(f"the int8 cache in {folder} lacks {left[:3]}; delete the folder to rebuild it")
    return hf_model.eval()


def _rms_norm(x: torch.Tensor, norm: nn.Module) -> torch.Tensor:
    """Qwen2RMSNorm's sums for float32 activations, without the module call."""
    return norm.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon))


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotary position embedding, as `apply_rotary_pos_emb` computes it."""
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin


def decode_step(hf_model, token_id: int, cache) -> torch.Tensor:
    """The next token's logits after `token_id`, appending its keys and values to `cache`.

    The same operations as the transformers forward for one token (its mask is all-ones, since a
    single new token may look at everything before it), called directly: in a decode step on a
    CPU, the Python around the kernels costs as much as the kernels, except for the matrix products.
    It needs each layer's fused `qkv` (with `sizes`) and `gate_up`: the int8 mode's layers
    (`quantize`) and int8-decode's (`kitchen.model.engines.decode_copies.FusedDecode`) have them; the same numbers
    as the transformers forward, to the bit, in both (tested).
    """
    model = hf_model.model
    x = model.embed_tokens.weight[token_id].view(1, 1, -1)
    cos, sin = model.rotary_emb(x, torch.tensor([[cache.get_seq_length()]]))
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    for i, layer in enumerate(model.layers):
        attn, mlp = layer.self_attn, layer.mlp
        qkv = attn.qkv.forward(_rms_norm(x, layer.input_layernorm))
        q, k, v = (t.view(1, 1, -1, attn.head_dim).transpose(1, 2) for t in qkv.split(attn.sizes, dim=-1))
        k, v = cache.layers[i].update(_rotate(k, cos, sin), v)
        out = F.scaled_dot_product_attention(_rotate(q, cos, sin), k, v, scale=attn.scaling, enable_gqa=True)
        x = x + attn.o_proj.forward(out.transpose(1, 2).reshape(1, 1, -1))
        gate, up = mlp.gate_up.forward(_rms_norm(x, layer.post_attention_layernorm)).chunk(2, dim=-1)
        x = x + mlp.down_proj.forward(F.silu(gate) * up)
    return hf_model.lm_head.forward(_rms_norm(x, model.norm))[0, -1]
