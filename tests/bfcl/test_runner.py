"""BFCL cases run in batches, one line per case, resumable (`kitchen.bfcl.runner`); on a tiny random
model (the `model` fixture, tests/bfcl/conftest.py), so the replies are noise but the plumbing is real."""

from types import SimpleNamespace

import jsonschema

from kitchen.bfcl.data import load_cases, tool_schemas
from kitchen.bfcl.runner import batches, read_results, run_cases

CASES = load_cases()


def test_the_runner_writes_a_line_per_case_and_resumes(model, tmp_path):
    out = tmp_path / "run.jsonl"
    cases = [c for c in CASES if c.category == "parallel"][:3]
    first = run_cases(model, cases, "native", out, batch_size=2, max_new_tokens=8, progress=False)
    assert [line["id"] for line in first] == [c.id for c in cases]
    assert {"reply", "calls", "valid", "error_type", "model", "dtype", "date", "batch_size"} <= set(first[0])
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    out.write_text("\n".join(lines[:2]) + "\n" + lines[2][:20])  # a run killed while writing
    assert len(read_results(out)) == 2
    again = run_cases(model, cases, "native", out, batch_size=2, max_new_tokens=8, progress=False)
    assert [line["reply"] for line in again] == [line["reply"] for line in first]
    assert len(read_results(out)) == 3  # only the torn case ran again


def test_constrained_batches_hold_every_row_to_its_own_grammar(model):
    cases = [c for c in CASES if c.category == "simple_python"][:3]
    lines = run_cases(model, cases, "constrained", None, batch_size=3, max_new_tokens=120, progress=False)
    for case, line in zip(cases, lines):
        if line["stop_reason"] == "end_of_turn" and line["calls"]:
            schema = tool_schemas(case)[0]["function"]
            for c in line["calls"]:
                assert c["name"] == schema["name"]
                jsonschema.validate(c["arguments"], schema["parameters"])
        assert not line["parse_errors"] or line["stop_reason"] == "max_new_tokens"


def test_batches_hold_one_category_each_shortest_prompt_first_whatever_the_order_given():
    by_id = {c.id: c for c in CASES}
    given = [by_id[i] for i in ("irrelevance_0", "simple_python_0", "irrelevance_1", "simple_python_1")]
    tokens = {by_id["simple_python_0"].question: 9, by_id["simple_python_1"].question: 3,
              by_id["irrelevance_0"].question: 5, by_id["irrelevance_1"].question: 5}
    prompts = SimpleNamespace(render=lambda messages, tools: messages[-1]["content"],
                              encode=lambda prompt: [0] * tokens[prompt])  # a prompt's length, made up
    formed = [[case.id for case, _, _ in batch] for batch in batches(prompts, given, "native", 2)]
    # simple_python comes first in BFCL's order; equal lengths keep the order given.
    assert formed == [["simple_python_1", "simple_python_0"], ["irrelevance_0", "irrelevance_1"]]
