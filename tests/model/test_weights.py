"""The canonical model's path with no network: a hub cache laid out in a temporary HF_HOME.

A cached hub model is the first choice in both HF_HUB_OFFLINE states and loads from local files
only (a socket guard fails the test on any connection attempt); its int8 weights are cached by
commit, so a second int8 load does not quantize again. The weights are the tiny random model's.
"""

import socket

import pytest

from hub_cache import FAKE_COMMIT, lay_out
from kitchen import settings
from kitchen.model import load, selection, weights
from kitchen.model.engines import quantized
from kitchen.model.tokenizer import offline_tokenizer
from tiny import tiny_hf_model

HUB_ID = selection.TIERS["0.5b"].hub_id


@pytest.fixture
def no_network(monkeypatch):
    """Record every attempt to open a connection, and refuse it."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args[1:] or args)
        raise OSError("tests/model/test_weights.py: no network here")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: refuse(None, *a))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: refuse(None, *a))
    return attempts


@pytest.fixture
def hub_home(tmp_path, monkeypatch):
    """HF_HOME and the kitchen cache in temporary folders, with the tiny model cached as the 0.5B hub model."""
    home = tmp_path / "hf"
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("KITCHEN_CACHE", str(tmp_path / "kitchen"))
    monkeypatch.delenv("KITCHEN_MODEL", raising=False)
    monkeypatch.setattr(load, "_LOADED", {})

    def fill(folder):
        tiny_hf_model().save_pretrained(folder)
        offline_tokenizer("0.5b").save_pretrained(folder)

    return lay_out(home / "hub", HUB_ID, fill)


@pytest.mark.parametrize("offline", [False, True])
def test_a_cached_hub_model_is_chosen_and_loaded_without_a_request(hub_home, no_network, monkeypatch, offline, capsys):
    if offline:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    else:
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    assert selection.hub_snapshot("0.5b") == hub_home
    tier, source, why = selection.choose()
    assert (tier, source) == ("0.5b", "hub") and "local cache" in why
    model = load.load_model(dtype="float32")
    line = capsys.readouterr().out
    assert f"Running {HUB_ID} (0.5B tier)" in line and f"commit {FAKE_COMMIT[:12]}" in model.info.details()
    assert ("cache only" in line) == offline
    reply = model.generate([{"role": "user", "content": "Hi"}], max_new_tokens=3)
    assert reply.new_tokens == 3
    assert no_network == [], f"connection attempts: {no_network}"


def test_a_warm_int8_load_reads_the_cached_int8_weights(hub_home, no_network, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    calls = []
    real = quantized.quantize
    monkeypatch.setattr(quantized, "quantize", lambda m: calls.append(1) or real(m))
    first = load.load_model("0.5b", "hub", dtype="int8", announce=False)
    assert calls == [1]
    cached = tmp_path / "kitchen" / "models" / f"0.5b-hub-{FAKE_COMMIT[:12]}-int8"
    assert (cached / "kitchen-source.json").is_file()
    monkeypatch.setattr(load, "_LOADED", {})  # a new session: load again
    second = load.load_model("0.5b", "hub", dtype="int8", announce=False)
    assert calls == [1], "the second int8 load quantized again"
    messages = [{"role": "user", "content": "Hi"}]
    assert first.generate(messages, max_new_tokens=4).token_ids == second.generate(messages, max_new_tokens=4).token_ids
    assert no_network == []


def test_a_hub_model_not_cached_is_not_chosen_offline_and_asking_for_it_says_what_to_do(tmp_path, no_network, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("KITCHEN_MODEL", raising=False)
    monkeypatch.setattr(load, "_LOADED", {})
    assert selection.hub_snapshot("1.5b") is None
    assert selection.choose("1.5b")[1] != "hub"
    with pytest.raises(RuntimeError, match=r"(?s)Qwen/Qwen2.5-1.5B-Instruct is not in the local .*HF_HUB_OFFLINE=1 allows no download.*KITCHEN_MODEL=pack"):
        load.load_model("1.5b", "hub", dtype="float32", announce=False)
    assert no_network == []


def test_a_download_that_fails_halfway_names_the_model_and_what_to_do(tmp_path, monkeypatch):
    import huggingface_hub

    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)

    def cut(*args, **kwargs):
        if kwargs.get("local_files_only"):
            raise huggingface_hub.errors.LocalEntryNotFoundError("not cached")
        raise ConnectionError("connection reset after 412 MB")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", cut)
    monkeypatch.setattr(weights, "hub_is_reachable", lambda timeout=2.0: False)
    with pytest.raises(RuntimeError, match=r"(?s)not in the local .*did not answer.*KITCHEN_MODEL=pack"):
        weights.load_hub(selection.TIERS["0.5b"], "float32", settings.current())  # no answer: no download is tried
    monkeypatch.setattr(weights, "hub_is_reachable", lambda timeout=2.0: True)
    with pytest.raises(RuntimeError, match=r"(?s)Could not download Qwen/Qwen2.5-0.5B-Instruct.*connection reset after 412 MB.*again.*KITCHEN_MODEL=pack"):
        weights.load_hub(selection.TIERS["0.5b"], "float32", settings.current())
