"""Replaying recorded runs: exactly the recorded requests are answered; and the committed recordings' integrity."""

import pytest

from kitchen.model.replay.recorder import RecordingModel
from kitchen.model.replay.runs import RECORDINGS, batch_key, read_recording, run_key
from kitchen.model.replay.player import ReplayMiss, ReplayModel
from kitchen.tools import calculator
from tiny import tiny_model

MESSAGES = [{"role": "user", "content": "What is 1234 × 5678?"}]


def test_replay_refuses_what_was_not_recorded(tmp_path):
    RecordingModel(tiny_model(), "unit", folder=tmp_path).generate(MESSAGES, max_new_tokens=4)
    replay = ReplayModel("0.5b", folder=tmp_path)
    with pytest.raises(ReplayMiss, match="What is 1234"):
        replay.generate([{"role": "user", "content": "What is 2 + 2?"}], max_new_tokens=4)
    with pytest.raises(ReplayMiss):
        replay.generate(MESSAGES, max_new_tokens=5)  # other settings, other request
    assert replay.questions() == ["What is 1234 × 5678?"]


def test_no_recordings_is_a_clear_error(tmp_path):
    with pytest.raises(ReplayMiss, match="No recordings"):
        ReplayModel("0.5b", folder=tmp_path)


def committed():
    return sorted(RECORDINGS.glob("*/*.json"))


@pytest.mark.parametrize("path", committed(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_committed_recordings_replay_their_own_prompts(path):
    """Each recorded prompt is re-rendered identically by replay's tokenizer and chat template."""
    data = read_recording(path)
    assert data["model"]["source"] in ("pack", "hub") and data["model"]["tier"] == path.parent.name
    replay = ReplayModel(path.parent.name)
    for run in data["runs"]:
        if run["kind"] == "logprobs":
            continue
        if run["messages"]:
            prompt = replay.render(run["messages"], run["tools"] or None, prefix=run["prefix"])
            assert prompt == run["prompt"]
        else:  # a batch row sent as a rendered prompt (generate_prompts): the prompt is what was recorded
            assert run["kind"] == "batch" and run["prompt"].startswith("<|im_start|>")
            prompt = run["prompt"]
        settings = run["settings"]
        key = (run_key(prompt, settings["max_new_tokens"], settings["stop"], settings.get("grammar"))
               if run["kind"] == "generate"
               else batch_key(prompt, settings["max_new_tokens"], settings.get("grammar")))
        assert run["key"] == key
        assert replay.encode(prompt) == run["prompt_ids"]
        assert replay.tok.decode([i for i in run["token_ids"] if i not in replay.end_ids]) == run["text"]


def test_there_are_recordings_for_both_tiers():
    tiers = {p.parent.name for p in committed()}
    assert {"0.5b", "1.5b"} <= tiers


def test_batched_requests_are_recorded_and_replayed(tmp_path):
    recorder = RecordingModel(tiny_model(), "batch", folder=tmp_path)
    conversations = [MESSAGES, [{"role": "user", "content": "What is 2 × 3?"}]]
    live = recorder.generate_batch(conversations, max_new_tokens=5)
    replay = ReplayModel("0.5b", folder=tmp_path)
    again = replay.generate_batch(conversations, max_new_tokens=5)
    assert [g.token_ids for g in again] == [g.token_ids for g in live]
    with pytest.raises(ReplayMiss):
        replay.generate(MESSAGES, max_new_tokens=5)  # a batched reply does not answer a single request


def test_rendered_prompts_with_grammars_are_recorded_and_replayed(tmp_path):
    from kitchen.grammar.calls import call_grammar

    recorder = RecordingModel(tiny_model(), "prompts", folder=tmp_path)
    prompts = [recorder.render(MESSAGES, [calculator]), recorder.render(MESSAGES)]
    grammars = [call_grammar([calculator], "required"), None]
    live = recorder.generate_prompts(prompts, max_new_tokens=12, grammars=grammars)
    replay = ReplayModel("0.5b", folder=tmp_path)
    again = replay.generate_prompts(prompts, max_new_tokens=12, grammars=grammars)
    assert [g.token_ids for g in again] == [g.token_ids for g in live]
    assert live[0].text.startswith("<tool_call>")  # the grammar held the first row
    with pytest.raises(ReplayMiss):
        replay.generate_prompts(prompts[:1], max_new_tokens=12)  # the same prompt without its grammar
