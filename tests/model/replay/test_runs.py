"""The recording file format: request keys, runs to JSON and back, files read and written."""

import json

import pytest

from kitchen.model.replay.runs import (FORMAT, RECORDINGS, batch_key, dump_recording, generation_from_run,
                                       read_recording, run_from_generation, run_key, score_key)
from kitchen.model.replies import Candidate, Generation, Token

PROMPT = "<|im_start|>user\nWhat is 2 + 2?<|im_end|>\n<|im_start|>assistant\n"


def committed():
    return sorted(RECORDINGS.glob("*/*.json"))


def test_a_run_key_changes_with_everything_that_shapes_the_reply_but_not_the_order_of_stops():
    key = run_key(PROMPT, 64, ["</tool_call>", "\n\n"])
    assert len(key) == 24 and int(key, 16) >= 0
    assert run_key(PROMPT, 64, ["\n\n", "</tool_call>"]) == key
    others = [run_key(PROMPT + " ", 64, ["</tool_call>", "\n\n"]), run_key(PROMPT, 65, ["</tool_call>", "\n\n"]),
              run_key(PROMPT, 64, ["</tool_call>"]), run_key(PROMPT, 64, ["</tool_call>", "\n\n"], "start: X")]
    assert len({key, *others}) == 5


def test_batch_rows_and_scores_have_keys_of_their_own():
    assert batch_key(PROMPT, 64) != run_key(PROMPT, 64, [])
    assert batch_key(PROMPT, 64, "start: X") != batch_key(PROMPT, 64)
    assert score_key(PROMPT, " 4") != score_key(PROMPT, " 5") != run_key(PROMPT, 64, [])
    assert score_key(PROMPT, " 4") == score_key(PROMPT, " 4")


def test_a_run_keeps_the_candidates_it_is_asked_for_and_their_grammar_flags():
    """A made-up Generation (the format's fields, not a model's reply) through JSON and back."""
    top = [Candidate(19, "4", 0.9, True), Candidate(20, "5", 0.05, False), Candidate(21, "6", 0.01, False)]
    gen = Generation(prompt=PROMPT, prompt_ids=[1, 2, 3], token_ids=[19, 151645], text="4",
                     tokens=[Token(19, "4", 0.9, top), Token(151645, "", 0.8)], stop_reason="end_of_turn",
                     prefilled_tokens=2, prefill_seconds=0.123456, decode_seconds=0.5)
    run = json.loads(json.dumps(run_from_generation(gen, kind="generate", key="k", messages=[], tools=[],
                                                    prefix="", settings={})))
    assert run["tokens"][0]["top"][0] == [19, "4", 0.9, True] and "mask_seconds" not in run["timings"]
    assert run["timings"]["prefill_seconds"] == 0.1235
    back = generation_from_run(run, top_k=2)
    assert back.tokens[0].top == top[:2] and back.tokens[1] == gen.tokens[1]
    assert (back.token_ids, back.text, back.stop_reason, back.reused_tokens) == ([19, 151645], "4", "end_of_turn", 1)


def test_every_committed_run_converts_to_a_generation_and_back_unchanged():
    runs = [run for path in committed() for run in read_recording(path)["runs"] if run["kind"] != "logprobs"]
    assert runs
    for run in runs:
        top_k = max((len(t["top"]) for t in run["tokens"]), default=0)
        again = run_from_generation(generation_from_run(run, top_k), kind=run["kind"], key=run["key"],
                                    messages=run["messages"], tools=run["tools"], prefix=run["prefix"],
                                    settings=run["settings"])
        assert again == run, run["key"]


@pytest.mark.parametrize("path", committed(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_committed_recordings_are_written_exactly_as_dump_recording_writes(path):
    text = path.read_text()
    data = read_recording(path)
    assert dump_recording(data) == text
    assert len([line for line in text.splitlines() if line.startswith('  {"kind":')]) == len(data["runs"])


def test_a_file_in_another_format_is_refused(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"format": "llm-kitchen-recording/0", "runs": []}))
    with pytest.raises(ValueError, match=FORMAT):
        read_recording(path)
    path.write_text(dump_recording({"format": FORMAT, "model": {"tier": "0.5b"}, "runs": []}))
    assert read_recording(path) == {"format": FORMAT, "model": {"tier": "0.5b"}, "runs": []}
