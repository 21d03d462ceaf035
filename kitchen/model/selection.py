"""Which model runs: the tier (0.5B or 1.5B) and the source (hub, pack or replay), and why.

Owns the tiers, the reading of a `KITCHEN_MODEL` value and the fallback order: a hub model in the
local cache, the hub if it answers, the offline pack, the recordings. Looks at files and at the
network (two seconds at most); loads nothing (`kitchen.model.load` does).

>>> parse_choice("1.5b:pack")
('1.5b', 'pack')
>>> parse_choice("replay")
(None, 'replay')
>>> parse_choice("server:http://127.0.0.1:8080"), server_url("server:http://127.0.0.1:8080")
((None, 'server'), 'http://127.0.0.1:8080')
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from pathlib import Path

from kitchen.model import packs
from kitchen.settings import MODEL_VAR, Settings, current

SOURCES = ("hub", "pack", "replay", "server")  # what a learner can choose (`scripted` is built by hand)
SERVER = "server:"  # KITCHEN_MODEL=server:http://HOST:PORT (or 1.5b:server:…): an inference server
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


def server_url(text: str | None) -> str | None:
    """The URL of a `KITCHEN_MODEL` value that names an inference server, else None."""
    at = (text or "").lower().find(SERVER)
    if not text or at < 0:
        return None
    return text[at + len(SERVER):].strip() or None


def parse_choice(text: str | None) -> tuple[str | None, str | None]:
    """Read a `KITCHEN_MODEL` value: "0.5b", "pack", "1.5b:replay", "server:http://…" (tier,
    source or both)."""
    tier = source = None
    if text and SERVER in text.lower():
        if not server_url(text):
            raise ValueError(f"{MODEL_VAR}={text!r}: give the server's URL after {SERVER!r}, "
                             "e.g. server:http://127.0.0.1:8080")
        text, source = text[: text.lower().find(SERVER)], "server"
    for word in (text or "").lower().replace("/", ":").split(":"):
        word = word.strip()
        if not word:
            continue
        if word in TIERS:
            tier = word
        elif word in SOURCES:
            source = word
        else:
            raise ValueError(f"{MODEL_VAR}={text!r}: {word!r} is neither a tier {sorted(TIERS)} "
                             f"nor a source {list(SOURCES)}.")
    return tier, source


def hub_snapshot(tier: str, cache: Path | None = None) -> Path | None:
    """The local folder of the hub model's cached snapshot (the commit `refs/main` names), or
    None when it is not complete there. Reads files only: never makes a request."""
    from huggingface_hub import snapshot_download  # imports in about a second: only when asked

    try:
        folder = Path(snapshot_download(TIERS[tier].hub_id, cache_dir=cache or current().hub_cache,
                                        local_files_only=True))
    except Exception:  # not cached (LocalEntryNotFoundError), or a damaged cache entry
        return None
    needed = [folder / "config.json", folder / "tokenizer.json"]
    return folder if any(folder.glob("*.safetensors")) and all(f.is_file() for f in needed) else None


def hub_is_cached(tier: str, cache: Path | None = None) -> bool:
    """True when the hub model's config, weights and tokenizer are in the local Hugging Face cache."""
    return hub_snapshot(tier, cache) is not None


def hub_is_reachable(timeout: float = 2.0) -> bool:
    """Can huggingface.co be reached? Never waits more than `timeout` seconds, DNS included."""
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


def choose(tier: str | None = None, source: str | None = None,
           env: Settings | None = None) -> tuple[str, str, str]:
    """Decide (tier, source, why) from the arguments and the environment `env` (read now if None).

    A chapter names the tier its story needs; a tier in `KITCHEN_MODEL` overrides it for the whole
    run (set on purpose, e.g. `KITCHEN_MODEL=0.5b` on a laptop with only the small pack). A source
    argument wins over the `KITCHEN_MODEL` source; then the fallbacks.
    """
    env = env or current()
    env_tier, env_source = parse_choice(env.model)
    tier_why = f"tier set by {MODEL_VAR}" if env_tier and env_tier != (tier or env_tier) else ""
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
        return tier, env_source, why(f"chosen by {MODEL_VAR}")
    if hub_is_cached(tier, env.hub_cache):  # offline or not: local files only, no request
        return tier, "hub", why("hub model found in the local cache"
                                + (" (HF_HUB_OFFLINE=1: cache only)" if env.hub_offline else ""))
    if not env.hub_offline and hub_is_reachable():
        return tier, "hub", why("hub reachable: the model is downloaded once")
    if packs.is_installed(TIERS[tier].pack):
        return tier, "pack", why("no hub; offline pack installed")
    return tier, "replay", why("no hub and no offline pack: replaying recordings")
