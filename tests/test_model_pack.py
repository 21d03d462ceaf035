"""The real 0.5B offline pack: the chapter 01 story, and a recording regenerated token for token.

These tests load the live model (about a second once the pack is converted and cached; the
first conversion takes about 40 s). They are marked `model`; `make test-fast` skips them.
"""

import pytest

from kitchen.arithmetic import extract_answer
from kitchen.harness import run_harness
from kitchen.models import load_model
from kitchen.protocols import NativeProtocol
from kitchen.replay import RECORDINGS, read_recording
from kitchen.tasks import grade, load_tasks
from kitchen.tools import calculator

pytestmark = pytest.mark.model
QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]
STEP_BY_STEP = ("You are a helpful assistant. Solve the task step by step: call one tool at a time, read its "
                "result, then call the next tool the task needs. When every part of the task is done, answer "
                "the user.")


def two_call_endings(model) -> tuple[str, int, bool, str, bool]:
    """Which rhyme mentions a sheep, then count its words: run once with the answer note (stop
    reason, tool results, completed?) and once step by step without it (stop reason, completed?)."""
    task = load_tasks("multi")[0]
    with_note = run_harness(model, task.request, task.functions, max_steps=4, max_new_tokens=100)
    steps = run_harness(model, [{"role": "system", "content": STEP_BY_STEP}, {"role": "user", "content": task.request}],
                        task.functions, max_steps=4, max_new_tokens=100, protocol=NativeProtocol(result_note=""))
    return (with_note.stop_reason, len(with_note.results), grade(task, with_note).completed,
            steps.stop_reason, grade(task, steps).completed)


@pytest.fixture(scope="module")
def model():
    return load_model("0.5b", "pack")


def test_without_tools_the_answer_is_wrong(model):
    reply = model.generate(QUESTION)
    answer = extract_answer(reply.text)
    assert answer is not None and answer != 7_006_652


def test_with_the_calculator_a_call_is_written_and_the_answer_is_right(model):
    trace = run_harness(model, QUESTION, [calculator])
    first = trace.steps[0]
    assert [c.name for c in first.parsed.calls] == ["calculator"]  # with or without the tags
    assert first.results[0].ok and first.results[0].content == "7006652"
    assert trace.stop_reason == "answer"
    assert "7006652" in trace.answer.replace(",", "")


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


def test_the_small_pack_fails_a_two_call_task_as_chapter_03_shows(model):
    """Chapter 03: with the answer note the 0.5B pack answers after one call, filling in the rest;
    without it (asked to go step by step) it does not complete the task either."""
    with_note_stop, with_note_results, with_note_done, steps_stop, steps_done = two_call_endings(model)
    assert with_note_stop == "answer" and with_note_results == 1
    assert not with_note_done
    assert not steps_done


def test_a_tiny_sweep_with_the_live_pack(model):
    from kitchen.sweep import make_problems, run_off, run_on, summarize

    problems = make_problems(2, 2, seed=3)
    rows = run_off(model, problems, batch_size=2) + run_on(model, problems)
    assert [(r["mode"], r["a"], r["b"]) for r in rows] == [("off", a, b) for a, b in problems] + \
        [("on", a, b) for a, b in problems]
    on = [r for r in rows if r["mode"] == "on"]
    assert all(r["called"] and r["right"] for r in on)  # with the calculator, 2-digit products are right
    assert {(p.mode, p.n) for p in summarize(rows)} == {("off", 2), ("on", 2)}
