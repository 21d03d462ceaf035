"""`load_model()`: the one call a notebook makes to get its model, and what it prints.

It reads the environment once (`kitchen.settings`), lets `kitchen.model.selection` pick the tier and the
source (an argument, then `KITCHEN_MODEL`, then: hub model in the local cache, hub reachable,
offline pack installed, recordings), loads it (`kitchen.model.weights`, `kitchen.model.replay.player`, or
`kitchen.model.server.client` for an inference server), wraps it
for recording when `KITCHEN_RECORD` is set, and prints one line naming the exact model, its source
and dtype. Loaded models are kept, so running a notebook's cells again costs nothing.
"""

from __future__ import annotations

from kitchen.model import packs
from kitchen.model.interface import DTYPES, ChatModel
from kitchen.model.selection import TIERS, choose, server_url
from kitchen.model.engines.cpu import best_dtype
from kitchen.model.weights import load_hub, load_pack
from kitchen.model.replay.recorder import wrap_for_recording
from kitchen.model.replay.player import ReplayModel
from kitchen.model.server.client import ServerModel
from kitchen.settings import DTYPE_VAR, current

_LOADED: dict[tuple[str, str, str], ChatModel] = {}


def load_model(tier: str | None = None, source: str | None = None, *, dtype: str | None = None,
               url: str | None = None, announce: bool = True, progress: bool = True) -> ChatModel:
    """Load (or reuse) the model for a tier and source, and print the one-line announcement.

    While `KITCHEN_RECORD` is set (see `scripts/record.py`), a live model's runs are recorded,
    and a replay request is served by the live pack when it is installed, so it gets recorded.
    In a notebook: `model = load_model("1.5b")` prints "Running Qwen2.5-Coder-1.5B-Instruct
    (1.5B tier) · source: offline pack · dtype: float32  [why]"; `model.info.details()` says the rest.
    `source="server"` (or `KITCHEN_MODEL=server:http://HOST:PORT`) uses the inference server at
    `url` (or the one `KITCHEN_MODEL` names) through its OpenAI completions API.
    """
    env = current()
    tier, source, why = choose(tier, source, env)
    if source == "replay" and env.record and packs.is_installed(TIERS[tier].pack):
        # Recording needs a live model: scripts/record.py runs the notebooks with the packs.
        source, why = "pack", "recording: the live pack stands in for replay"
    if source == "server":
        url = url or server_url(env.model)
        if not url:
            raise ValueError(f"source='server' needs the server's URL: load_model(..., url=...) or "
                             f"KITCHEN_MODEL=server:http://HOST:PORT")
        dtype = "none"
    dtype = dtype or env.dtype or best_dtype()
    if dtype not in DTYPES and source != "server":
        raise ValueError(f"dtype {dtype!r} (from the argument or {DTYPE_VAR}) is not one of {DTYPES}")
    key = (tier, source, url or dtype)
    if key not in _LOADED:
        if source == "server":
            model = ServerModel(url, tier)
        elif source == "replay":
            model: ChatModel = ReplayModel(tier)
        elif source == "pack":
            model = load_pack(TIERS[tier], dtype, env, progress)
        else:
            model = load_hub(TIERS[tier], dtype, env)
        _LOADED[key] = wrap_for_recording(model, env.record)
    model = _LOADED[key]
    if announce:
        print(model.describe() + f"  [{why}]")
    return model
