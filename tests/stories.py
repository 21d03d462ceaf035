"""A run for the model tests: chapter 03's two-call task, ended two ways (see test_model_pack.py)."""

from kitchen.harness import run_harness
from kitchen.protocols import NativeProtocol
from kitchen.tasks import grade, load_tasks

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
