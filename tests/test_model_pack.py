"""The real 0.5B offline pack: a recording regenerated token for token, and a tiny live sweep.

(What the chapters claim a live model does is checked by the story suite, tests/stories.)

These tests load the live model (about a second once the pack is converted and cached; the
first conversion takes about 40 s). They are marked `model`; `make test-unit` leaves them out.
"""

import pytest

from kitchen.models import load_model
from kitchen.replay import RECORDINGS, read_recording

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def model():
    return load_model("0.5b", "pack")


def test_a_recording_is_regenerated_token_for_token():
    path = RECORDINGS / "0.5b" / "01_arithmetic_one_token_at_a_time.json"
    data = read_recording(path)
    live = load_model("0.5b", "pack", dtype=data["model"]["dtype"], announce=False)
    assert live.info.model_name == data["model"]["model_name"]
    runs = [r for r in data["runs"] if r["kind"] == "generate"]
    assert len(runs) >= 3 and any(r["settings"].get("reuse_cache") for r in runs)  # a harness run's later turn
    for run in runs:  # in the recorded order, so a turn that reused the cache finds the same one
        gen = live.generate(run["messages"], run["tools"] or None, prefix=run["prefix"],
                            max_new_tokens=run["settings"]["max_new_tokens"], stop=run["settings"]["stop"],
                            reuse_cache=run["settings"].get("reuse_cache", False))
        assert gen.prompt_ids == run["prompt_ids"]
        assert gen.token_ids == run["token_ids"], run["messages"][-1]["content"][:60]


def test_a_tiny_sweep_with_the_live_pack(model):
    from kitchen.sweep import make_problems, run_off, run_on, summarize

    problems = make_problems(2, 2, seed=3)
    rows = run_off(model, problems, batch_size=2) + run_on(model, problems)
    assert [(r["mode"], r["a"], r["b"]) for r in rows] == [("off", a, b) for a, b in problems] + \
        [("on", a, b) for a, b in problems]
    on = [r for r in rows if r["mode"] == "on"]
    assert all(r["called"] and r["right"] for r in on)  # with the calculator, 2-digit products are right
    assert {(p.mode, p.n) for p in summarize(rows)} == {("off", 2), ("on", 2)}
