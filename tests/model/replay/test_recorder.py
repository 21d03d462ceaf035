"""Recording a live (tiny) model: every call passed through and appended to a recording file."""

from types import SimpleNamespace

import pytest

from kitchen.model.interface import ModelInfo
from kitchen.model.replay.player import ReplayModel
from kitchen.model.replay.recorder import RecordingModel, wrap_for_recording
from kitchen.model.replay.runs import FORMAT, RECORDINGS, read_recording
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator
from kitchen.tools.schemas import as_schema
from tiny import tiny_model

MESSAGES = [{"role": "user", "content": "What is 1234 × 5678?"}]


def test_record_then_replay_gives_the_same_tokens(tmp_path):
    live = tiny_model()
    recorder = RecordingModel(live, "unit", folder=tmp_path)
    recorded = recorder.generate(MESSAGES, [calculator], max_new_tokens=8, stop=["</tool_call>"], top_k=3)
    scores = recorder.logprobs("The answer is", " 42")
    data = read_recording(tmp_path / "unit.json")
    assert data["format"] == FORMAT and data["model"]["model_name"] == "tiny-random-qwen2"
    assert data["recorded_by"].startswith("scripts/record.py") and data["versions"]["torch"]
    (run, score_run) = data["runs"]
    assert run["tools"] == [as_schema(calculator)] and run["settings"]["top_k"] == 5
    assert all(len(t["top"]) == 5 for t in run["tokens"])
    assert all(len(t.top) == 3 for t in recorded.tokens)  # the caller still gets what it asked for

    replay = ReplayModel("0.5b", folder=tmp_path)
    assert replay.info.source == "replay" and replay.info.model_name == "tiny-random-qwen2"
    again = replay.generate(MESSAGES, [calculator], max_new_tokens=8, stop=["</tool_call>"], top_k=3)
    assert again.token_ids == recorded.token_ids and again.text == recorded.text
    assert [len(t.top) for t in again.tokens] == [3] * len(again.tokens)
    assert replay.logprobs("The answer is", " 42") == scores
    streamed = "".join(t.text for t in replay.stream(MESSAGES, [calculator], max_new_tokens=8,
                                                       stop=["</tool_call>"]))
    assert streamed == recorded.text


def test_a_request_asked_twice_is_recorded_once(tmp_path):
    recorder = RecordingModel(tiny_model(), "twice", folder=tmp_path)
    first = recorder.generate(MESSAGES, max_new_tokens=3)
    again = recorder.generate(MESSAGES, max_new_tokens=3)
    recorder.generate(MESSAGES, max_new_tokens=4)  # other settings: another request
    runs = read_recording(tmp_path / "twice.json")["runs"]
    assert [r["settings"]["max_new_tokens"] for r in runs] == [3, 4]
    assert again.token_ids == first.token_ids == runs[0]["token_ids"]


def test_each_row_of_a_batch_is_recorded_with_its_conversation(tmp_path):
    recorder = RecordingModel(tiny_model(), "rows", folder=tmp_path)
    conversations = [MESSAGES, [{"role": "user", "content": "What is 2 × 3?"}]]
    replies = recorder.generate_batch(conversations, [calculator], max_new_tokens=3)
    runs = read_recording(tmp_path / "rows.json")["runs"]
    assert [r["kind"] for r in runs] == ["batch", "batch"]
    assert [r["messages"] for r in runs] == conversations
    assert [r["token_ids"] for r in runs] == [g.token_ids for g in replies]
    assert all(r["settings"]["batch"] == 2 and r["tools"] == [as_schema(calculator)] for r in runs)


def test_a_recording_of_another_model_is_not_added_to(tmp_path):
    RecordingModel(tiny_model(), "shared", folder=tmp_path).generate(MESSAGES, max_new_tokens=2)
    before = (tmp_path / "shared.json").read_text()
    other = RecordingModel(ScriptedModel(["x"]), "shared", folder=tmp_path)
    with pytest.raises(ValueError, match="recorded from another model"):
        other.generate(MESSAGES, max_new_tokens=2)
    assert (tmp_path / "shared.json").read_text() == before


def test_the_recorder_passes_the_live_models_own_attributes_through():
    live = tiny_model()
    recorder = RecordingModel(live, "unit")
    assert recorder.hf_model is live.hf_model and recorder.kv is live.kv and recorder.tok is live.tok
    assert recorder.info == live.info and recorder.path == RECORDINGS / "0.5b" / "unit.json"


def test_a_model_is_wrapped_only_when_a_recording_is_named_and_never_a_replay():
    live = tiny_model()
    assert wrap_for_recording(live, None) is live and wrap_for_recording(live, "") is live
    wrapped = wrap_for_recording(live, "lesson")
    assert isinstance(wrapped, RecordingModel) and wrapped.inner is live
    replay = SimpleNamespace(info=ModelInfo("0.5b", "m", "replay", "replay of 1 run", "bfloat16", "replay"))
    assert wrap_for_recording(replay, "lesson") is replay
