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

from kitchen.model.engines.cpu import int8_activation_bits

FOLDER = "int8-weights"  # in the cache folder: a file per fused layer ("3.qkv.pt"), and REST
REST = "rest.pt"  # the float32 rest: embeddings and norms
FORMAT = 2  # the cache's layout; a folder cached in another is made again (`kitchen.model.weights`)


@functools.cache
def _qwen2() -> ModuleType:
    """transformers' Qwen2 code, imported on first use (two seconds; a replayed chapter never needs it)."""
    from transformers.models.qwen2 import modeling_qwen2

    return modeling_qwen2


CHUNK_ROWS = 16_384  # the kernel packs a tall matrix (the 151,936-row head) much faster in slices


def activation_bits() -> int:
    """How many bits this CPU's int8 layers quantize activations to: 8 where fbgemm's AVX-512 VNNI
    kernel runs, else 7 (`kitchen.model.engines.cpu.int8_activation_bits`)."""
    return int8_activation_bits()


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
        # Activations are quantized to 8 bits where fbgemm's VNNI kernel runs; elsewhere its 16-bit
        # intermediate sums could saturate, so it uses 7 bits, as torch's own dynamic Linear does.
        # The 8th bit matters: with 7-bit activations the 0.5B pack stopped calling tools in ch. 05.
        self.reduce_range = activation_bits() == 7

    @staticmethod
    def quantize(weight: torch.Tensor, bias: torch.Tensor | None) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """Per-row int8 quantization of a float weight, cut into slices of `CHUNK_ROWS` rows.

        Each row is quantized on its own (its largest magnitude maps to 127), so quantizing the
        slices one by one gives the numbers the whole matrix would, without a float copy of it."""
        rows = weight.split(CHUNK_ROWS)
        biases = bias.split(CHUNK_ROWS) if bias is not None else [None] * len(rows)
        with warnings.catch_warnings():  # quantized tensors are deprecated in torch; its kernels are not
            warnings.simplefilter("ignore")
            return [(_rows_to_int8(w), b) for w, b in zip(rows, biases)]

    def chunks(self) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        return [torch.ops.quantized.linear_unpack(p) for p in self.packed]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outs = [torch.ops.quantized.linear_dynamic(x, p, self.reduce_range) for p in self.packed]
        return outs[0] if len(outs) == 1 else torch.cat(outs, dim=-1)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8"


def _rows_to_int8(weight: torch.Tensor) -> torch.Tensor:
    """A quantized int8 tensor, one scale per row: the row's largest magnitude over 127."""
    scale = (weight.abs().amax(dim=1) / 127).clamp(min=1e-12).double()
    zero = torch.zeros(weight.shape[0], dtype=torch.long)
    return torch.quantize_per_channel(weight.float(), scale, zero, 0, torch.qint8)


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


# Each fused int8 layer of a decoder layer, and the transformers layers whose rows it stacks, in order.
FUSED = {"qkv": ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"), "o": ("self_attn.o_proj",),
         "gate_up": ("mlp.gate_proj", "mlp.up_proj"), "down": ("mlp.down_proj",)}


class Pieces:
    """The float weights of the linear layers, gathered piece by piece (a model's parameters, or
    tensors as a GGUF file gives them, `kitchen.model.unpack`): each fused layer is quantized to
    int8 as soon as its last piece arrives, and its float pieces are let go.

    >>> from transformers import Qwen2Config
    >>> cfg = Qwen2Config(hidden_size=64, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
    ...                   num_key_value_heads=1, vocab_size=32)
    >>> pieces = Pieces.for_config(cfg)
    >>> pieces.add("model.layers.0.mlp.down_proj.weight", torch.ones(64, 64)), sorted(pieces.done)
    (True, ['0.down'])
    >>> pieces.add("model.norm.weight", torch.ones(64))  # not a linear layer's
    False
    """

    def __init__(self, biased: set[str]):
        self.biased = biased  # the parts with a bias ("self_attn.q_proj"): a fused layer waits for it too
        self.waiting: dict[str, dict[str, torch.Tensor]] = {}
        self.done: dict[str, Int8Linear] = {}

    @classmethod
    def for_config(cls, config: Any) -> "Pieces":
        """Qwen2 (every model here) has biases on the query, key and value projections only."""
        return cls(set(FUSED["qkv"]))

    def add(self, name: str, tensor: torch.Tensor) -> bool:
        """Take `name`'s tensor if it belongs to a linear layer (True), else leave it (False)."""
        if name == "lm_head.weight":
            self.done["lm_head"] = Int8Linear(Int8Linear.quantize(tensor.detach(), None))
            return True
        layer, part, kind = _split(name)
        key = next((k for k, parts in FUSED.items() if part in parts), None)
        if layer is None or key is None:
            return False
        got = self.waiting.setdefault(f"{layer}.{key}", {})
        got[f"{part}.{kind}"] = tensor.detach()
        parts = FUSED[key]
        if len(got) == len(parts) + len(self.biased & set(parts)):  # every piece is here: quantize
            del self.waiting[f"{layer}.{key}"]
            weight = torch.cat([got[f"{p}.weight"] for p in parts])  # the rows stacked, in FUSED's order
            bias = torch.cat([got[f"{p}.bias"] for p in parts]).float() if f"{parts[0]}.bias" in got else None
            self.done[f"{layer}.{key}"] = Int8Linear(Int8Linear.quantize(weight, bias))
        return True

    def linears(self, layers: int) -> dict[str, Int8Linear]:
        """Every fused layer, by `install`'s names; an error naming what never arrived."""
        wanted = {"lm_head"} | {f"{i}.{k}" for i in range(layers) for k in FUSED}
        if missing := sorted(wanted - set(self.done)):
            raise RuntimeError(f"the weights lack pieces of {missing[:3]}")
        return self.done


def _split(name: str) -> tuple[int | None, str, str]:
    """("model.layers.3.self_attn.q_proj.weight") -> (3, "self_attn.q_proj", "weight")."""
    head, _, kind = name.rpartition(".")
    bits = head.split(".")
    if len(bits) < 4 or bits[:2] != ["model", "layers"] or not bits[2].isdigit():
        return None, head, kind
    return int(bits[2]), ".".join(bits[3:]), kind


def install(hf_model, linears: dict[str, Int8Linear]) -> None:
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
    pieces = Pieces.for_config(hf_model.config)
    with torch.no_grad():
        for name, weights in hf_model.named_parameters():
            if not name.startswith("lm_head."):
                pieces.add(name, weights)
        pieces.add("lm_head.weight", hf_model.lm_head.weight)  # tied or not, the head is quantized apart
    install(hf_model, pieces.linears(len(hf_model.model.layers)))
    return hf_model


def _installed(hf_model) -> dict[str, Int8Linear]:
    """The model's int8 layers under the names `install` takes."""
    out = {"lm_head": hf_model.lm_head}
    for i, layer in enumerate(hf_model.model.layers):
        out |= {f"{i}.qkv": layer.self_attn.qkv, f"{i}.o": layer.self_attn.o_proj,
                f"{i}.gate_up": layer.mlp.gate_up, f"{i}.down": layer.mlp.down_proj}
    return out


def save(hf_model, folder: Path) -> None:
    """Cache the int8 weights (as int8 tensors with their scales), one file per fused layer, and the
    float rest (embeddings, norms) in one more, in `folder`'s `FOLDER`."""
    where = folder / FOLDER
    where.mkdir(parents=True, exist_ok=True)
    for name, module in _installed(hf_model).items():
        torch.save(module.chunks(), where / f"{name}.pt")
    torch.save(hf_model.state_dict(), where / REST)  # Int8Linear has no state: this is the rest


def load(folder: Path):
    """Build the fast-mode model from `save`'s files and the config next to them (no float32 copy).

    Each layer's int8 slices are read (not mapped), packed for this CPU's kernel and let go before
    long, so memory holds the packed layers and little else; the rest is mapped, and of the
    embedding table only the rows of tokens met are ever read in."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(folder)  # saved after `install`: the head is not tied
    where = folder / FOLDER
    names = ["lm_head"] + [f"{i}.{key}" for i in range(config.num_hidden_layers) for key in FUSED]

    def read(name: str) -> tuple[str, Int8Linear]:
        with warnings.catch_warnings():  # torch warns that quantized tensors are deprecated
            warnings.simplefilter("ignore")
            return name, Int8Linear(torch.load(where / f"{name}.pt", weights_only=True))

    # Packing is the slow part of a warm load: spread the layers over the cores.
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        linears = dict(pool.map(read, names))
    with warnings.catch_warnings():  # TypedStorage is deprecated
        warnings.simplefilter("ignore")
        rest = torch.load(where / REST, weights_only=True, mmap=True)
    with torch.device("meta"):
        hf_model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    install(hf_model, linears)
    hf_model.load_state_dict(rest, strict=False, assign=True)
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
