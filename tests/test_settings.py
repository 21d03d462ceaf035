"""The environment is read in one place, at the moment of asking."""

from pathlib import Path

from kitchen.settings import current


def test_settings_follow_the_environment_at_each_call(monkeypatch, tmp_path):
    for var in ("KITCHEN_MODEL", "KITCHEN_DTYPE", "KITCHEN_RECORD", "HF_HUB_CACHE", "HF_HUB_OFFLINE",
                "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("KITCHEN_CACHE", str(tmp_path / "k"))
    env = current()
    assert (env.model, env.dtype, env.record, env.hub_offline) == (None, None, None, False)
    assert env.hub_cache == tmp_path / "hf" / "hub" and env.cache == tmp_path / "k"
    monkeypatch.setenv("KITCHEN_MODEL", "1.5b:pack")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "yes")
    monkeypatch.setenv("HF_HUB_CACHE", "/elsewhere")
    env = current()
    assert env.model == "1.5b:pack" and env.hub_offline and env.hub_cache == Path("/elsewhere")
