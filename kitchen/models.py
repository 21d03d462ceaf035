"""Which model runs, from where, and how it is loaded: the one loader of the series.

Two tiers, 0.5B and 1.5B, each with three sources:

- `hub`: the canonical Hugging Face model (Qwen/Qwen2.5-0.5B-Instruct, ...), the first choice
  when it is cached or the hub can be reached;
- `pack`: the offline pack from the package index, a Qwen2.5-*Coder* instruct GGUF file
  (see `kitchen.packs`), de-quantized once and cached as an ordinary Hugging Face folder;
- `replay`: recordings of real runs in `data/recordings/` (see `kitchen.replay`), no model at all.

`load_model()` picks the source (an explicit argument, then the `KITCHEN_MODEL` environment
variable, then: hub model in the local cache, hub reachable, pack installed, replay) and prints
one line that names the exact model, its source and dtype. A cached hub model is loaded from its
local files only, whether or not `HF_HUB_OFFLINE=1` is set (as across the Hugging Face libraries,
that setting means "use the cache"); a hub model is downloaded only when it is not cached and the
hub answered.

>>> parse_choice("1.5b:pack")
('1.5b', 'pack')
>>> parse_choice("replay")
(None, 'replay')
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import platform
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from . import packs
from .generation import Generation, KVState, TokenStream
from .schemas import as_schema

ENV_VAR = "KITCHEN_MODEL"
SOURCES = ("hub", "pack", "replay")
DEFAULT_TIER = "0.5b"


@dataclass(frozen=True)
class Tier:
    name: str  # "0.5b"
    label: str  # "0.5B"
    hub_id: str
    pack: packs.PackSpec


TIERS: dict[str, Tier] = {
    "0.5b": Tier("0.5b", "0.5B", "Qwen/Qwen2.5-0.5B-Instruct", packs.PACKS["0.5b"]),
    "1.5b": Tier("1.5b", "1.5B", "Qwen/Qwen2.5-1.5B-Instruct", packs.PACKS["1.5b"]),
}


@dataclass(frozen=True)
class ModelInfo:
    """What is running, in words a learner can check."""

    tier: str
    model_name: str  # the exact model: "Qwen2.5-Coder-0.5B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct"
    source: str  # "hub", "pack" or "replay"
    origin: str  # where the weights came from, in detail
    dtype: str  # "bfloat16", "float32" or "int8" (the fast mode, see `kitchen.int8`)
    engine: str = "transformers"

    def announce(self) -> str:
        label = TIERS[self.tier].label
        if self.source == "replay":
            return (f"Replaying {self.model_name} ({label} tier) · source: {self.origin} · "
                    f"dtype when recorded: {self.dtype} · no model runs here")
        return (f"Running {self.model_name} ({label} tier) · source: {self.origin} · "
                f"dtype: {self.dtype} · engine: {self.engine}")

    def to_dict(self) -> dict[str, str]:
        return dict(self.__dict__)


# ---------------------------------------------------------------------------------------------
# Choosing a tier and a source


def parse_choice(text: str | None) -> tuple[str | None, str | None]:
    """Read a `KITCHEN_MODEL` value: "0.5b", "pack", "1.5b:replay" (tier, source or both)."""
    tier = source = None
    for word in (text or "").lower().replace("/", ":").split(":"):
        word = word.strip()
        if not word:
            continue
        if word in TIERS:
            tier = word
        elif word in SOURCES:
            source = word
        else:
            raise ValueError(f"{ENV_VAR}={text!r}: {word!r} is neither a tier {sorted(TIERS)} "
                             f"nor a source {list(SOURCES)}.")
    return tier, source


def hub_offline() -> bool:
    return any(os.environ.get(v, "").lower() in ("1", "true", "yes")
               for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


HUB_FILES = ["*.json", "*.safetensors", "*.txt"]  # config, weights, tokenizer, chat template


def hub_cache_dir() -> Path:
    """The Hugging Face hub cache, read from the environment at each call (`HF_HUB_CACHE`, else
    `HF_HOME/hub`, else `~/.cache/huggingface/hub`), so a test or a user can point it elsewhere."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "huggingface"
    return Path(home) / "hub"


def hub_snapshot(tier: str) -> Path | None:
    """The local folder of the hub model's cached snapshot (the commit `refs/main` names), or
    None when it is not complete there. Reads files only: never makes a request."""
    from huggingface_hub import snapshot_download

    try:
        folder = Path(snapshot_download(TIERS[tier].hub_id, cache_dir=hub_cache_dir(), local_files_only=True))
    except Exception:  # not cached (LocalEntryNotFoundError), or a damaged cache entry
        return None
    has_weights = any(folder.glob("*.safetensors"))
    return folder if has_weights and (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file() else None


def hub_is_cached(tier: str) -> bool:
    """True when the hub model's config, weights and tokenizer are in the local Hugging Face cache."""
    return hub_snapshot(tier) is not None


def hub_is_reachable(timeout: float = 2.0) -> bool:
    """Can huggingface.co be reached? Never waits more than `timeout` seconds, DNS included."""
    if hub_offline():
        return False
    ok: list[bool] = []

    def probe() -> None:
        try:
            socket.create_connection(("huggingface.co", 443), timeout=timeout).close()
            ok.append(True)
        except OSError:
            pass

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(timeout)
    return bool(ok)


def installed_tiers() -> list[str]:
    """The tiers whose offline pack is installed here, smallest first."""
    return [name for name, tier in TIERS.items() if packs.is_installed(tier.pack)]


def choose(tier: str | None = None, source: str | None = None) -> tuple[str, str, str]:
    """Decide (tier, source, why).

    A chapter names the tier its story needs; a tier in `KITCHEN_MODEL` overrides it for the whole
    run (set on purpose, e.g. `KITCHEN_MODEL=0.5b` on a laptop with only the small pack). A source
    argument wins over the `KITCHEN_MODEL` source; then the fallbacks.
    """
    env_tier, env_source = parse_choice(os.environ.get(ENV_VAR))
    tier_why = f"tier set by {ENV_VAR}" if env_tier and env_tier != (tier or env_tier) else ""
    tier = (env_tier or tier or DEFAULT_TIER).lower()
    if tier not in TIERS:
        raise ValueError(f"Unknown tier {tier!r}; choose one of {sorted(TIERS)}.")

    def why(text: str) -> str:
        return f"{text}; {tier_why}" if tier_why else text

    if source:
        if source not in SOURCES:
            raise ValueError(f"Unknown source {source!r}; choose one of {list(SOURCES)}.")
        return tier, source, why("asked for")
    if env_source:
        return tier, env_source, why(f"chosen by {ENV_VAR}")
    if hub_is_cached(tier):  # offline or not: a cached model loads from local files, with no request
        return tier, "hub", why("hub model found in the local cache"
                                + (" (HF_HUB_OFFLINE=1: cache only)" if hub_offline() else ""))
    if hub_is_reachable():
        return tier, "hub", why("hub reachable: the model is downloaded once")
    if packs.is_installed(TIERS[tier].pack):
        return tier, "pack", why("no hub; offline pack installed")
    return tier, "replay", why("no hub and no offline pack: replaying recordings")


# ---------------------------------------------------------------------------------------------
# dtype


@functools.cache
def _linux_cpu_flags() -> str:
    """The CPU's feature flags as Linux lists them ("" elsewhere)."""
    try:
        return Path("/proc/cpuinfo").read_text() if platform.system() == "Linux" else ""
    except OSError:
        return ""


def cpu_supports_bf16() -> bool:
    """True when this CPU has native bfloat16 instructions (then bfloat16 is about 2x faster)."""
    if platform.system() == "Linux":
        flags = _linux_cpu_flags()
        return "avx512_bf16" in flags or "amx_bf16" in flags
    if platform.system() == "Darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "hw.optional.arm.FEAT_BF16"], capture_output=True,
                                 text=True, timeout=2)
            return out.stdout.strip() == "1"
        except (OSError, subprocess.SubprocessError):
            return False
    return False


DTYPE_ENV_VAR = "KITCHEN_DTYPE"  # "bfloat16", "float32" or "int8" for the whole series
DTYPES = ("bfloat16", "float32", "int8")


def cpu_has_vnni() -> bool:
    """True when the CPU multiplies 8-bit numbers into 32-bit sums directly (AVX-512 VNNI, AVX-VNNI)."""
    flags = _linux_cpu_flags()
    return "avx512_vnni" in flags or "avx_vnni" in flags


def int8_kernels() -> bool:
    """True when torch's x86 int8 kernels (fbgemm) run here with 8-bit activations (VNNI)."""
    import torch

    return "fbgemm" in torch.backends.quantized.supported_engines and cpu_has_vnni()


def best_dtype() -> str:
    """The default engine setting: the int8 fast mode where its kernels run with 8-bit activations
    (it keeps the chapters' stories: tests/test_fast_mode.py), else bfloat16 on CPUs built for it,
    else float32."""
    if int8_kernels():
        return "int8"
    return "bfloat16" if cpu_supports_bf16() else "float32"


# ---------------------------------------------------------------------------------------------
# The model interface shared by live and replayed models


class ChatModel:
    """A chat model behind one interface: render a prompt, stream or generate a reply.

    Live models (`LiveModel`) and replayed ones (`kitchen.replay.ReplayModel`) both implement it.
    """

    info: ModelInfo
    tok: Any

    def describe(self) -> str:
        return self.info.announce()

    def render(self, messages: Sequence[dict], tools: Sequence[Callable | dict] | None = None, *,
               prefix: str = "", add_generation_prompt: bool = True) -> str:
        """The exact text the model reads: the chat template applied, plus `prefix` if given."""
        schemas = [as_schema(t) for t in tools] if tools else None
        text = self.tok.apply_chat_template(list(messages), tools=schemas, tokenize=False,
                                            add_generation_prompt=add_generation_prompt)
        return text + prefix

    def encode(self, text: str) -> list[int]:
        return self.tok(text, add_special_tokens=False)["input_ids"]

    @property
    def end_ids(self) -> set[int]:
        return {self.tok.convert_tokens_to_ids(t) for t in ("<|im_end|>", "<|endoftext|>")}

    def stream(self, messages: Sequence[dict], tools: Sequence[Callable | dict] | None = None, *,
               prefix: str = "", max_new_tokens: int = 256, stop: Sequence[str] = (),
               top_k: int = 0, reuse_cache: bool = False):
        raise NotImplementedError

    def generate(self, messages: Sequence[dict], tools: Sequence[Callable | dict] | None = None,
                 **kwargs) -> Generation:
        """Generate a whole reply (greedy). Same arguments as `stream`."""
        return self.stream(messages, tools, **kwargs).run()

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        """Log-probability of each token of `continuation` after `prompt` (raw text, no template)."""
        raise NotImplementedError

    def generate_batch(self, conversations: Sequence[Sequence[dict]], tools=None, *,
                       max_new_tokens: int = 256) -> list[Generation]:
        """Greedy replies to several conversations at once (left-padded batch, no streaming)."""
        raise NotImplementedError


class LiveModel(ChatModel):
    """A transformers model running here, with greedy decoding and KV-cache reuse."""

    def __init__(self, hf_model, tok, info: ModelInfo):
        self.hf_model, self.tok, self.info = hf_model, tok, info
        self.kv = KVState()
        self.step = None  # the transformers forward decodes, except in the int8 fast mode:
        if info.dtype == "int8":
            from .int8 import decode_step

            self.step = decode_step

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False) -> TokenStream:
        """Stream a greedy reply, one `Token` per token. See `kitchen.generation.TokenStream`.

        `stop` strings end the reply (kept in its text); `top_k` > 0 records that many candidates
        per step. The KV cache of every call is kept; `reuse_cache=True` pre-fills only the tokens
        not already in it (the harness does this for the turns of one run). By default a call
        starts from an empty cache, so its reply depends on its prompt alone, not on what ran
        before (in the int8 fast mode, how a prompt is split between cache and pre-fill can
        change a reply: its activations are quantized per pre-fill).
        """
        prompt = self.render(messages, tools, prefix=prefix)
        if not reuse_cache:
            self.kv.clear()
        return TokenStream(self.hf_model, self.tok, prompt, self.encode(prompt),
                           max_new_tokens=max_new_tokens, stop=stop, end_ids=self.end_ids,
                           top_k=top_k, kv=self.kv, step=self.step)

    def generate_batch(self, conversations, tools=None, *, max_new_tokens=256) -> list[Generation]:
        """Greedy replies to several conversations in one batch.

        The prompts are padded on the left so that every row ends where its reply begins;
        transformers' `generate` runs the loop. Greedy replies in a batch can differ in rare
        tokens from one-at-a-time replies (padding changes the floating-point sums).
        """
        import time as _time

        import torch

        from .generation import Token

        prompts = [self.render(m, tools) for m in conversations]
        self.tok.padding_side = "left"
        batch = self.tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        end_ids = sorted(self.end_ids)
        t0 = _time.perf_counter()
        with torch.inference_mode():
            out = self.hf_model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False,
                                         eos_token_id=end_ids, pad_token_id=self.tok.pad_token_id,
                                         output_scores=True, return_dict_in_generate=True)
        seconds = _time.perf_counter() - t0
        width = batch["input_ids"].shape[1]
        probs = torch.stack(out.scores, dim=1).float().softmax(-1)  # [batch, steps, vocab]
        results = []
        for row, prompt in enumerate(prompts):
            ids = out.sequences[row, width:].tolist()
            cut = next((i + 1 for i, t in enumerate(ids) if t in end_ids), len(ids))
            ids = ids[:cut]
            tokens, text = [], ""
            for i, token_id in enumerate(ids):
                full = self.tok.decode([t for t in ids[:i + 1] if t not in end_ids])
                tokens.append(Token(token_id, full[len(text):], float(probs[row, i, token_id])))
                text = full
            results.append(Generation(
                prompt=prompt, prompt_ids=self.encode(prompt), token_ids=ids, text=text, tokens=tokens,
                stop_reason="end_of_turn" if ids and ids[-1] in end_ids else "max_new_tokens",
                prefilled_tokens=len(self.encode(prompt)), prefill_seconds=0.0, decode_seconds=seconds))
        return results

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        import torch

        p_ids, c_ids = self.encode(prompt), self.encode(continuation)
        with torch.inference_mode():
            logits = self.hf_model(input_ids=torch.tensor([p_ids + c_ids])).logits[0].float()
        logp = torch.log_softmax(logits[len(p_ids) - 1:-1], dim=-1)
        return [(self.tok.decode([t]), float(logp[i, t])) for i, t in enumerate(c_ids)]


# ---------------------------------------------------------------------------------------------
# Loading


_LOADED: dict[tuple, ChatModel] = {}


def load_model(tier: str | None = None, source: str | None = None, *, dtype: str | None = None,
               announce: bool = True, progress: bool = True) -> ChatModel:
    """Load (or reuse) the model for a tier and source, and print the one-line announcement.

    While `KITCHEN_RECORD` is set (see `scripts/record.py`), a live model's runs are recorded,
    and a replay request is served by the live pack when it is installed, so it gets recorded.

    >>> model = load_model()                       # doctest: +SKIP
    Running Qwen2.5-Coder-0.5B-Instruct (0.5B tier) · source: offline pack ... · dtype: int8 · engine: ...
    """
    tier, source, why = choose(tier, source)
    if source == "replay" and os.environ.get("KITCHEN_RECORD") and packs.is_installed(TIERS[tier].pack):
        # Recording needs a live model: scripts/record.py runs the notebooks with the packs.
        source, why = "pack", "recording: the live pack stands in for replay"
    dtype = dtype or os.environ.get(DTYPE_ENV_VAR) or best_dtype()
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r} (from the argument or {DTYPE_ENV_VAR}) is not one of {DTYPES}")
    key = (tier, source, dtype)
    if key not in _LOADED:
        if source == "replay":
            from .replay import ReplayModel

            model: ChatModel = ReplayModel(tier)
        elif source == "pack":
            model = _load_pack(TIERS[tier], dtype, progress)
        else:
            model = _load_hub(TIERS[tier], dtype)
        from .replay import wrap_for_recording

        _LOADED[key] = wrap_for_recording(model)
    model = _LOADED[key]
    if announce:
        print(model.describe() + f"  [{why}]")
    return model


INT8_ENGINE = ("transformers layers with int8 weights (every linear layer re-quantized to int8 at "
               "the first load, one scale per output row; activations quantized on the fly) and a lean "
               "decode step; replies can differ from float32's")


def _torch_dtype(dtype: str):
    import torch

    return {"bfloat16": torch.bfloat16, "float32": torch.float32, "int8": torch.float32}[dtype]


def _engine(dtype: str) -> str:
    return INT8_ENGINE if dtype == "int8" else "transformers"


def _download(tier: Tier) -> Path:
    """Fetch the hub model's files into the local cache (progress shown); a clear error if it fails."""
    from huggingface_hub import snapshot_download

    what_to_do = (f"use the offline pack instead: load_model({tier.name!r}, 'pack') or KITCHEN_MODEL=pack "
                  "(`make venv` installs it)")
    if hub_offline() or not hub_is_reachable():  # cache only, or no answer: not a single download request
        why = ("HF_HUB_OFFLINE=1 allows no download. Unset HF_HUB_OFFLINE on a network" if hub_offline()
               else "huggingface.co did not answer within two seconds. Try again on a network")
        raise RuntimeError(f"{tier.hub_id} is not in the local Hugging Face cache ({hub_cache_dir()}) and "
                           f"{why}, or {what_to_do}.")
    print(f"Downloading {tier.hub_id} from the Hugging Face hub into {hub_cache_dir()} (once; "
          "later loads read the local cache).")
    try:
        return Path(snapshot_download(tier.hub_id, cache_dir=hub_cache_dir(), allow_patterns=HUB_FILES))
    except Exception as err:
        raise RuntimeError(
            f"Could not download {tier.hub_id} from the Hugging Face hub ({type(err).__name__}: {err}). "
            f"Run the cell again when the network is back (the files already fetched are kept), or "
            f"{what_to_do}.") from err


def _load_hub(tier: Tier, dtype: str) -> LiveModel:
    """The canonical model from its local snapshot (downloaded first if it is not cached). Its int8
    weights are cached like the pack's, keyed by the snapshot's commit."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = hub_snapshot(tier.name) or _download(tier)
    commit = folder.name  # the snapshot folder is named by its commit
    tok = AutoTokenizer.from_pretrained(folder)
    if dtype == "int8":
        from . import int8

        def build(partial: Path) -> None:
            hf_model = AutoModelForCausalLM.from_pretrained(folder, dtype=_torch_dtype("float32"))
            int8.save(int8.quantize(hf_model), partial)
            hf_model.config.save_pretrained(partial)

        cached = packs.cache_dir() / "models" / f"{tier.name}-hub-{commit[:12]}-int8"
        _build_once(cached, {"hub_id": tier.hub_id, "commit": commit, "dtype": dtype}, build,
                    f"First int8 load of {tier.hub_id}: quantizing it once; later loads take seconds.")
        hf_model = int8.load(cached)
    else:
        hf_model = AutoModelForCausalLM.from_pretrained(folder, dtype=_torch_dtype(dtype)).eval()
    origin = f"Hugging Face hub, commit {commit[:12]}, from the local cache"
    return LiveModel(hf_model, tok, ModelInfo(tier.name, tier.hub_id, "hub", origin, dtype, _engine(dtype)))


def _build_once(folder: Path, stamp: dict, build: Callable[[Path], None], notice: str) -> None:
    """Make `folder` with `build(partial_folder)` unless its stamp already says `stamp`.

    The folder appears whole or not at all: it is built under another name and renamed."""
    mark = folder / "kitchen-source.json"
    if mark.is_file() and json.loads(mark.read_text()) == stamp:
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


def dense_dir(tier: Tier, dtype: str) -> Path:
    """Where the de-quantized pack is cached as an ordinary Hugging Face folder."""
    return packs.cache_dir() / "models" / f"{tier.name}-pack-{dtype}"


def pack_origin(spec: packs.PackSpec) -> str:
    return (f"{spec.describe()} ({spec.quantization} GGUF from the package index, "
            f"SHA-256 {spec.sha256[:12]}… verified, de-quantized by transformers)")


def _cached_tokenizer(folder: Path):
    """The tokenizer saved in `folder`. Building it from tokenizer.json takes half a warm load
    (transformers parses 11 MB of JSON in Python); a pickled copy, made once per transformers
    version, loads in about half that time."""
    import pickle

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


def _load_pack(tier: Tier, dtype: str, progress: bool) -> LiveModel:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    spec = tier.pack
    gguf = packs.assemble(spec, progress=progress)  # checks the parts every time (cheap when unchanged)
    folder = dense_dir(tier, dtype)

    def build(partial: Path) -> None:
        tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        hf_model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name,
                                                        dtype=_torch_dtype("float32"))
        # What is left is an ordinary dense model: drop the GGUF loader's marks so it saves and
        # reloads like any Hugging Face folder.
        hf_model.hf_quantizer = None
        if hasattr(hf_model.config, "quantization_config"):
            delattr(hf_model.config, "quantization_config")
        if dtype == "int8":
            from . import int8

            int8.save(int8.quantize(hf_model), partial)
            hf_model.config.save_pretrained(partial)
        else:
            hf_model.to(_torch_dtype(dtype)).save_pretrained(partial)
        tok.save_pretrained(partial)

    _build_once(folder, {"sha256": spec.sha256, "dtype": dtype}, build,
                f"First load of the {tier.label} pack: de-quantizing {gguf.name} once "
                f"(about {20 * spec.size // packs.PACKS['0.5b'].size + 20} s); later loads take seconds.")
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a load from the cache takes a second: no bar needed
    try:
        tok = _cached_tokenizer(folder)
        if dtype == "int8":
            from . import int8

            hf_model = int8.load(folder)
        else:
            hf_model = AutoModelForCausalLM.from_pretrained(folder, dtype=_torch_dtype(dtype)).eval()
    finally:
        hf_logging.enable_progress_bar()
    return LiveModel(hf_model, tok, ModelInfo(tier.name, spec.model_name, "pack", pack_origin(spec), dtype,
                                              _engine(dtype)))
