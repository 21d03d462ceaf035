"""The logic behind the tools on/off comparison and the dashboard, with the replay model."""

from kitchen.chapters.lab import available_sources, compare, exact_answer, answer_line
from kitchen.model.replay.player import ReplayModel
from kitchen.tools import calculator


def test_exact_answer_and_verdict():
    assert exact_answer("What is 1234 × 5678?") == 7_006_652
    assert exact_answer("What is 987 x 654?") == 645_498
    assert exact_answer("What is 2 ** 10?") == 1024
    assert exact_answer("Which rhyme mentions a sheep?") is None
    assert answer_line("It is 7,006,652.", 7_006_652).endswith("✓ right")
    assert "wrong" in answer_line("It is 7,000,000,000.", 7_006_652)
    assert answer_line("no idea", 5) == "no number found; the right answer is 5"
    assert answer_line("anything", None) == "no exact answer to check against"


def test_compare_with_a_replayed_model():
    model = ReplayModel("0.5b")
    result = compare(model, "What is 1234 × 5678?", [calculator])
    assert result.exact == 7_006_652
    assert "wrong" in result.off_line  # recorded: the model alone says 7,000,000,000
    assert result.on_line.endswith("✓ right")
    assert result.on.results[0].name == "calculator"


def test_available_sources_offer_replay_for_both_tiers():
    values = [v for _, v in available_sources()]
    assert ("0.5b", "replay") in values and ("1.5b", "replay") in values
    live = [v for v in values if v[1] == "pack"]
    assert values[:len(live)] == live  # live sources first
