"""The offline pack's GGUF file turned into a transformers model one tensor at a time.

transformers can load a GGUF file itself, but it de-quantizes every tensor into one dictionary and
only then builds the model: two dense float32 copies at once, 12.8 GB at the peak for the 1.5B pack,
more than a laptop has. Here the `gguf` reader maps the file, and each tensor in turn is
de-quantized alone (with `gguf.dequantize`, the function transformers calls, so the numbers are
the same to the bit), handed on, and let go:

- `load_dense`: each tensor put into the model in the dtype asked for (float32 or bfloat16), so the
  peak is the model in that dtype, plus one tensor;
- `load_int8`: each layer's weights quantized to int8 as soon as its last piece has been read
  (`kitchen.model.engines.quantized`), so no float copy of the linear layers is ever whole; what
  stays float32 is the embedding table and the norms.

How long a first load takes and the memory it needs: docs/speed.md, "Load".

Names are mapped from GGUF's (`blk.3.attn_q.weight`) to transformers' (`model.layers.3.self_attn.
q_proj.weight`) by transformers' own table. Does not choose, cache or announce anything:
`kitchen.model.weights` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import numpy as np
import torch
from tqdm.auto import tqdm

from kitchen.model.engines import quantized


def skeleton(gguf: Path, dtype: torch.dtype) -> Any:
    """The model the GGUF file describes (its config from the file's metadata), with no weights
    yet: every tensor on torch's "meta" device, which holds shapes and no numbers."""
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(config, dtype=dtype)


def tensors(gguf: Path, hf_model: Any, progress: bool = True) -> Iterator[tuple[str, torch.Tensor]]:
    """Each tensor of the file as (transformers name, float32 tensor), de-quantized one at a time."""
    from gguf import GGUFReader, dequantize
    from transformers.modeling_gguf_pytorch_utils import TensorProcessor, get_gguf_hf_weights_map

    reader = GGUFReader(gguf)  # reads the header; the tensors are only located
    names = get_gguf_hf_weights_map(hf_model, TensorProcessor(config=hf_model.config.to_dict()))
    with open(gguf, "rb") as file:
        for tensor in tqdm(reader.tensors, desc=f"Converting {gguf.name}", unit="tensor", disable=not progress):
            if tensor.name not in names:
                continue  # a tensor the model does not use (none in the packs)
            # The tensor's bytes read from the file, not through the reader's map of it: pages of a
            # map that were read stay in this process's memory until the map goes, the whole file by the end.
            file.seek(tensor.data_offset)
            raw = np.frombuffer(file.read(tensor.n_bytes), dtype=tensor.data.dtype).reshape(tensor.data.shape)
            yield names[tensor.name], _dequantize(raw, tensor.tensor_type, dequantize)
    del reader


ROWS = 4096  # rows de-quantized at once: numpy's temporaries stay small even for the embedding table


def _dequantize(data: np.ndarray, kind: Any, dequantize: Any) -> torch.Tensor:
    """A tensor's rows de-quantized a block at a time into one float32 tensor that torch owns (an F32
    tensor's "de-quantized" array is a view of the mapped file: it is copied)."""
    if data.ndim < 2 or data.shape[0] <= ROWS:
        return torch.from_numpy(np.array(dequantize(data, kind), dtype=np.float32))
    first = dequantize(data[:ROWS], kind)
    out = np.empty((data.shape[0], *first.shape[1:]), dtype=np.float32)
    out[:ROWS] = first
    for start in range(ROWS, data.shape[0], ROWS):
        out[start:start + ROWS] = dequantize(data[start:start + ROWS], kind)
    return torch.from_numpy(out)


def _finish(hf_model: Any) -> Any:
    """Buffers that are computed, not stored (the rotary angles), made for real; a model with a
    tensor left on "meta" is an error, never a silent half-load."""
    hf_model.model.rotary_emb = type(hf_model.model.rotary_emb)(hf_model.config)
    left = [n for n, t in [*hf_model.named_parameters(), *hf_model.named_buffers()] if t.is_meta]
    if left:
        raise RuntimeError(f"the GGUF file did not give {left[:3]}")
    return hf_model.eval()


def load_dense(gguf: Path, dtype: torch.dtype, progress: bool = True) -> Any:
    """The model in `dtype`, every tensor converted as it is read."""
    hf_model = skeleton(gguf, dtype)
    for name, weights in tensors(gguf, hf_model, progress):
        hf_model.load_state_dict({name: weights.to(dtype)}, strict=False, assign=True)
    if hf_model.config.tie_word_embeddings:
        hf_model.tie_weights()  # the output layer reads the embedding table, as in the file
    return _finish(hf_model)


def load_int8(gguf: Path, progress: bool = True) -> Any:
    """The int8 fast mode (`kitchen.model.engines.quantized`): each fused layer quantized once all its
    pieces are read, the float pieces then dropped; embeddings and norms kept in float32."""
    hf_model = skeleton(gguf, torch.float32)
    pieces = quantized.Pieces.for_config(hf_model.config)
    for name, weights in tensors(gguf, hf_model, progress):
        if not pieces.add(name, weights):  # not a piece of a linear layer: an embedding or a norm
            hf_model.load_state_dict({name: weights}, strict=False, assign=True)
    tied = hf_model.config.tie_word_embeddings
    if tied:  # the output layer is the embedding table, quantized on its own
        pieces.add("lm_head.weight", hf_model.model.embed_tokens.weight)
    quantized.install(hf_model, pieces.linears(len(hf_model.model.layers)))
    return _finish(hf_model)
