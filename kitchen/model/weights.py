"""Loading weights from a source (the offline pack or the hub) into a `LiveModel`, with caches.

Owns the conversions done once and cached under `KITCHEN_CACHE`: the pack's GGUF file
converted (tensor by tensor, `kitchen.model.unpack`) to an ordinary Hugging Face folder, int8 weights (pack and hub), the pickled
tokenizer; and the hub download. Does not choose what to load (`kitchen.model.selection`, `kitchen.model.load`).
"""

from __future__ import annotations

import json
import pickle
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from kitchen.model import packs, unpack
from kitchen.model.engines import decode_copies, onednn, quantized
from kitchen.model.interface import Dtype, ModelInfo
from kitchen.model.selection import Tier, hub_is_reachable, hub_snapshot
from kitchen.model.live import LiveModel
from kitchen.settings import Settings

HUB_FILES = ["*.json", "*.safetensors", "*.txt"]  # config, weights, tokenizer, chat template
INT8_ENGINE = ("transformers layers with int8 weights (every linear layer re-quantized to int8 at "
               "the first load, one scale per output row; activations quantized on the fly) and a lean "
               "decode step; replies can differ from float32's")
INT8_DECODE_ENGINE = ("transformers: float32 where a layer reads several tokens at once (the pre-fill), an "
                      "int8 copy of its weights (one scale per output row, bfloat16 activations) where it "
                      "reads one (each decode step); replies can differ from float32's")


def _torch_dtype(dtype: Dtype) -> Any:
    """The dtype torch loads the weights in: int8 and int8-decode start from float32 weights."""
    import torch

    return torch.bfloat16 if dtype == "bfloat16" else torch.float32


def _live(hf_model: Any, tok: Any, info: ModelInfo, copies: Path | None = None) -> LiveModel:
    """The `LiveModel`, with float32's linear layers on oneDNN (`kitchen.model.engines.onednn`), their int8 copies
    for decode steps in int8-decode (read from, or saved to, the file `copies` when given), and the
    lean decode step (`kitchen.model.engines.quantized.decode_step`) in int8 and int8-decode."""
    if info.dtype in ("float32", "int8-decode"):
        onednn.use_onednn(hf_model)
    if info.dtype == "int8-decode":
        decode_copies.use_int8_decode(hf_model, copies)
    return LiveModel(hf_model, tok, info, step=quantized.decode_step if info.dtype in ("int8", "int8-decode") else None)


def _engine(dtype: Dtype) -> str:
    return {"int8": INT8_ENGINE, "int8-decode": INT8_DECODE_ENGINE}.get(dtype, "transformers")


def is_built(folder: Path, stamp: dict) -> bool:
    """Whether `build_once` has made `folder` with this `stamp`."""
    mark = folder / "kitchen-source.json"
    return mark.is_file() and json.loads(mark.read_text()) == stamp


def build_once(folder: Path, stamp: dict, build: Callable[[Path], None], notice: str) -> None:
    """Make `folder` with `build(partial_folder)` unless its stamp already says `stamp`.

    The folder appears whole or not at all: it is built under another name and renamed."""
    if is_built(folder, stamp):
        return
    print(notice)
    t0 = time.perf_counter()
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    build(partial)
    (partial / "kitchen-source.json").write_text(json.dumps(stamp))
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    print(f"Cached in {folder} ({time.perf_counter() - t0:.0f} s).")


# ---------------------------------------------------------------------------------------------
# The hub


def download(tier: Tier, env: Settings) -> Path:
    """Fetch the hub model's files into the local cache (progress shown); a clear error if it fails."""
    from huggingface_hub import snapshot_download

    what_to_do = (f"use the offline pack instead: load_model({tier.name!r}, 'pack') or KITCHEN_MODEL=pack "
                  "(`make venv` installs it)")
    if env.hub_offline or not hub_is_reachable():  # cache only, or no answer: not a single request
        why = ("HF_HUB_OFFLINE=1 allows no download. Unset HF_HUB_OFFLINE on a network" if env.hub_offline
               else "huggingface.co did not answer within two seconds. Try again on a network")
        raise RuntimeError(f"{tier.hub_id} is not in the local Hugging Face cache ({env.hub_cache}) and "
                           f"{why}, or {what_to_do}.")
    print(f"Downloading {tier.hub_id} from the Hugging Face hub into {env.hub_cache} (once; "
          "later loads read the local cache).")
    try:
        return Path(snapshot_download(tier.hub_id, cache_dir=env.hub_cache, allow_patterns=HUB_FILES))
    except Exception as err:
        raise RuntimeError(
            f"Could not download {tier.hub_id} from the Hugging Face hub ({type(err).__name__}: {err}). "
            f"Run the cell again when the network is back (the files already fetched are kept), or "
            f"{what_to_do}.") from err


def load_hub(tier: Tier, dtype: Dtype, env: Settings) -> LiveModel:
    """The canonical model from its local snapshot (downloaded first if it is not cached). Its int8
    weights are cached like the pack's, keyed by the snapshot's commit."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = hub_snapshot(tier.name, env.hub_cache) or download(tier, env)
    commit = folder.name  # the snapshot folder is named by its commit
    tok = AutoTokenizer.from_pretrained(folder)
    if dtype == "int8":
        def build(partial: Path) -> None:
            hf_model = AutoModelForCausalLM.from_pretrained(folder, dtype=_torch_dtype("float32"))
            quantized.save(quantized.quantize(hf_model), partial)
            hf_model.config.save_pretrained(partial)

        cached = env.cache / "models" / f"{tier.name}-hub-{commit[:12]}-int8"
        build_once(cached, {"hub_id": tier.hub_id, "commit": commit, "dtype": dtype, "format": quantized.FORMAT}, build,
                   f"First int8 load of {tier.hub_id}: quantizing it once; later loads take seconds.")
        hf_model = quantized.load(cached)
    else:
        hf_model = AutoModelForCausalLM.from_pretrained(folder, dtype=_torch_dtype(dtype)).eval()
    origin = f"Hugging Face hub, commit {commit[:12]}, from the local cache"
    return _live(hf_model, tok, ModelInfo(tier.name, tier.hub_id, "hub", origin, dtype, _engine(dtype)))


# ---------------------------------------------------------------------------------------------
# The offline pack


def dense_dir(tier: Tier, dtype: Dtype, cache: Path) -> Path:
    """Where the de-quantized pack is cached as an ordinary Hugging Face folder."""
    return cache / "models" / f"{tier.name}-pack-{dtype}"


def stored_dtype(dtype: Dtype) -> Dtype:
    """The setting whose weights are cached for `dtype`: int8-decode loads the float32 folder (its
    int8 copies are saved in that folder too, `kitchen.model.engines.decode_copies.COPIES`)."""
    return "float32" if dtype == "int8-decode" else dtype


def pack_origin(spec: packs.PackSpec) -> str:
    return (f"{spec.describe()} ({spec.quantization} GGUF from the package index, "
            f"SHA-256 {spec.sha256[:12]}… verified, de-quantized tensor by tensor with the gguf reader)")


def cached_tokenizer(folder: Path) -> Any:
    """The tokenizer saved in `folder`. Building it from tokenizer.json takes half a warm load
    (transformers parses 11 MB of JSON in Python); a pickled copy, made once per transformers
    version, loads in about half that time."""
    import transformers
    from transformers import AutoTokenizer

    cached = folder / f"tokenizer-transformers-{transformers.__version__}.pickle"
    if cached.is_file():
        try:
            return pickle.loads(cached.read_bytes())
        except Exception:  # a damaged copy: build the tokenizer again and replace it
            cached.unlink(missing_ok=True)
    tok = AutoTokenizer.from_pretrained(folder)
    partial = cached.with_suffix(".partial")
    partial.write_bytes(pickle.dumps(tok))
    partial.rename(cached)
    return tok


def _convert_pack(gguf: Path, dtype: Dtype, partial: Path) -> None:
    """The GGUF file converted tensor by tensor (`kitchen.model.unpack`: never a whole float32 copy
    more than `dtype` needs), saved in `partial` in `dtype` (or as int8), with its tokenizer."""
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(partial)
    if dtype == "int8":
        hf_model = unpack.load_int8(gguf)
        quantized.save(hf_model, partial)
        hf_model.config.save_pretrained(partial)
    else:
        unpack.load_dense(gguf, _torch_dtype(dtype)).save_pretrained(partial)


def load_pack(tier: Tier, dtype: Dtype, env: Settings, progress: bool = True) -> LiveModel:
    """The tier's offline pack, converted once (cached under `KITCHEN_CACHE`) and loaded."""
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    spec = tier.pack
    gguf = packs.assemble(spec, progress=progress)  # checks the parts every time (cheap when unchanged)
    stored = stored_dtype(dtype)
    folder = dense_dir(tier, stored, env.cache)
    # an int8 folder names its layout too: one made in an earlier layout is made again
    stamp = {"sha256": spec.sha256, "dtype": stored} | ({"format": quantized.FORMAT} if stored == "int8" else {})
    build_once(folder, stamp,
               lambda partial: _convert_pack(gguf, stored, partial),
               f"First {stored} load of the {tier.label} pack: converting {gguf.name} once, tensor by tensor "
               f"(about {20 * spec.size // packs.PACKS['0.5b'].size + 20} s); later loads take seconds.")
    hf_logging.disable_progress_bar()  # a load from the cache takes a second: no bar needed
    try:
        tok = cached_tokenizer(folder)
        if dtype == "int8":
            hf_model = quantized.load(folder)
        else:
            hf_model = AutoModelForCausalLM.from_pretrained(folder, dtype=_torch_dtype(dtype)).eval()
    finally:
        hf_logging.enable_progress_bar()
    info = ModelInfo(tier.name, spec.model_name, "pack", pack_origin(spec), dtype, _engine(dtype))
    return _live(hf_model, tok, info, folder / decode_copies.COPIES if dtype == "int8-decode" else None)
