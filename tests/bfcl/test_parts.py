"""BFCL: the data read from the installed package, BFCL's own checker, the modes and the runner.

`kitchen.bfcl.data`, `kitchen.bfcl.grading`, `kitchen.bfcl.modes` and `kitchen.bfcl.runner` are
tested here with no model but a tiny random one (the live slice is in tests/test_bfcl_slice.py).
"""

import copy
import json
import subprocess
import sys
from collections import Counter

import jsonschema
import pytest

from kitchen.bfcl.data import CATEGORIES, load_cases, to_json_schema, tool_schemas
from kitchen.bfcl.grading import IRRELEVANT_CALL, NO_CALL, grade, ground_truth_calls
from kitchen.bfcl.modes import MODES, bfcl_system_prompt, find_calls, request
from kitchen.bfcl.runner import read_results, run_cases
from kitchen.grammar.calls import grammar_error
from kitchen.harness.parsing import ToolCall
from tiny import tiny_model

CASES = load_cases()
ANSWERED = [c for c in CASES if c.answer]
JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}


def test_the_five_categories_come_from_the_package_with_bfcls_counts():
    counts = Counter(c.category for c in CASES)
    assert counts == {"simple_python": 400, "multiple": 200, "parallel": 200, "parallel_multiple": 200,
                      "irrelevance": 240}
    assert all(c.answer for c in CASES if c.category != "irrelevance")
    assert tuple(counts) == CATEGORIES


def test_bfcls_own_ground_truth_grades_as_right_everywhere():
    verdicts = [grade(c, ground_truth_calls(c)) for c in ANSWERED]
    wrong = [(c.id, v.errors) for c, v in zip(ANSWERED, verdicts) if not v.valid]
    assert not wrong and len(verdicts) == 1000


def call(name, **arguments):
    return ToolCall(name, arguments, "test", "", 0, 0)


def test_perturbed_answers_are_wrong_with_bfcls_error_types():
    factorial = next(c for c in CASES if c.id == "simple_python_1")  # math.factorial(number=5)
    assert grade(factorial, [call("math.factorial", number=5)]).valid
    assert grade(factorial, [call("math.factorial", number=6)]).error_type == "value_error:others"
    assert grade(factorial, [call("math.factorial", number="5")]).error_type == "type_error:simple"
    assert "wrong_func_name" in grade(factorial, [call("factorial", number=5)]).error_type
    assert grade(factorial, []).error_type == NO_CALL
    assert "wrong_count" in grade(factorial, [call("math.factorial", number=5)] * 2).error_type
    spotify = next(c for c in CASES if c.id == "parallel_0")  # two calls: Taylor Swift, Maroon 5
    right = ground_truth_calls(spotify)
    assert grade(spotify, right).valid and grade(spotify, right[::-1]).valid  # any order
    assert not grade(spotify, right[:1]).valid
    swapped = copy.deepcopy(right)
    swapped[0].arguments["duration"], swapped[1].arguments["duration"] = 15, 20
    assert not grade(spotify, swapped).valid


def test_every_answered_case_fails_when_one_value_changes():
    failed = 0
    for case in ANSWERED:
        calls = ground_truth_calls(case)
        target = next((c for c in calls if c.arguments), None)
        if target is None:
            continue
        key = next(iter(target.arguments))
        target.arguments[key] = "a value no answer allows"
        failed += not grade(case, calls).valid
    assert failed == sum(1 for c in ANSWERED if any(x.arguments for x in ground_truth_calls(c)))


def test_irrelevance_is_right_only_without_a_call():
    case = next(c for c in CASES if c.category == "irrelevance")
    assert grade(case, []).valid
    assert grade(case, [call(case.functions[0]["name"])]).error_type == IRRELEVANT_CALL


def types_in(spec):
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "type":
                yield value
            if key in ("properties",):
                for sub in value.values():
                    yield from types_in(sub)
            elif key in ("items", "additionalProperties"):
                yield from types_in(value)
    elif isinstance(spec, list):
        for sub in spec:
            yield from types_in(sub)


def test_bfcl_types_become_json_schema_types_once_everywhere():
    seen = Counter(t for c in CASES for f in c.functions for t in types_in(f["parameters"]))
    assert {"dict", "float", "tuple", "any"} <= set(seen)  # BFCL's dialect is really there
    converted = Counter(t for c in CASES for tool in tool_schemas(c) for t in types_in(tool["function"]["parameters"]))
    assert set(converted) <= JSON_TYPES
    assert sum(converted.values()) == sum(seen.values())
    assert to_json_schema({"type": "tuple", "items": {"type": "float"}}) == {"type": "array", "items": {"type": "number"}}


def test_the_ground_truth_validates_against_the_converted_schemas():
    bad = []
    for case in ANSWERED:
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tool_schemas(case)}
        for c in ground_truth_calls(case):
            for error in jsonschema.Draft202012Validator(schemas[c.name]).iter_errors(c.arguments):
                bad.append((case.id, error.message))
    assert len(bad) <= 25, bad[:10]  # BFCL's answers are not always of the declared type (see the chapter)


def test_each_mode_builds_its_request():
    case = CASES[0]
    native, prompt, constrained = (request(case, m) for m in MODES)
    assert native.tools and native.grammar is None and native.messages == case.messages
    assert prompt.tools is None and prompt.messages[0]["role"] == "system"
    assert "[func_name1(params_name1=params_value1" in bfcl_system_prompt(case)
    assert "Note that the provided function is in Python 3 syntax." in bfcl_system_prompt(case)
    assert constrained.grammar and not grammar_error(constrained.grammar)
    with pytest.raises(ValueError):
        request(case, "telepathy")


def test_every_case_has_a_grammar():
    assert not [c.id for c in CASES if request(c, "constrained").grammar_error]


def test_calls_are_read_the_way_each_mode_asks():
    spotify = next(c for c in CASES if c.id == "parallel_0")
    text = '[spotify.play(artist="Taylor Swift", duration=20), spotify.play(artist="Maroon 5", duration=15)]'
    assert grade(spotify, find_calls(spotify, "prompt", text).calls).valid
    tagged = "\n".join('<tool_call>\n' + json.dumps({"name": "spotify.play", "arguments": a}) + '\n</tool_call>'
                       for a in ({"artist": "Taylor Swift", "duration": 20}, {"artist": "Maroon 5", "duration": 15}))
    assert grade(spotify, find_calls(spotify, "native", tagged).calls).valid
    assert find_calls(spotify, "native", text).calls == []  # native mode does not read Python calls


def test_prompt_mode_reads_replies_as_bfcl_does():
    spotify = next(c for c in CASES if c.id == "parallel_0")
    # An argument the function does not have reaches BFCL's checker (not dropped by our parser).
    extra = '[spotify.play(artist="Taylor Swift", duration=20, volume=3), spotify.play(artist="Maroon 5", duration=15)]'
    verdict = grade(spotify, find_calls(spotify, "prompt", extra).calls)
    assert not verdict.valid and verdict.error_type != NO_CALL
    # So does a function that was not offered: in irrelevance it is a call where none was wanted.
    irrelevant = next(c for c in CASES if c.category == "irrelevance")
    assert grade(irrelevant, find_calls(irrelevant, "prompt", "[get_weather(city='Paris')]").calls).error_type == IRRELEVANT_CALL
    # Prose, or calls inside prose, are not a list of calls: no call, and the decoder's reason.
    for text in ("I cannot answer that.", "Sure: spotify.play(artist='A', duration=1) is what you need."):
        read = find_calls(spotify, "prompt", text)
        assert read.calls == [] and read.errors[0].kind == "bad_call"
        assert grade(irrelevant, read.calls).valid and grade(spotify, read.calls).error_type == NO_CALL


@pytest.fixture(scope="module")
def model():
    return tiny_model()


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


def test_results_files_slices_and_tables():
    from kitchen.bfcl.results import PAPER, accuracy, error_families, results_path, slice_cases

    assert results_path("0.5b", "native", "int8").name == "0.5b-native-int8.jsonl"
    sliced = slice_cases(CASES, 20)
    assert len(sliced) == 100 and Counter(c.category for c in sliced) == {c: 20 for c in CATEGORIES}
    lines = [{"category": "simple_python", "valid": True, "error_type": ""},
             {"category": "simple_python", "valid": False, "error_type": "value_error:string"},
             {"category": "irrelevance", "valid": False, "error_type": IRRELEVANT_CALL}]
    assert accuracy(lines) == {"simple_python": 50.0, "irrelevance": 0.0, "overall": 100 / 3}
    assert error_families(lines) == {"wrong value": 1, "call where none was wanted": 1}
    assert PAPER[("0.5b", "FC")]["simple"] == 61.2 and len(PAPER) == 4


def test_the_chapter_views_show_runs_cases_and_a_live_runner(model):
    from kitchen.bfcl.views import case_html, case_runner, families_table, results_table

    case = next(c for c in CASES if c.id == "parallel_0")
    line = run_cases(model, [case], "native", None, batch_size=1, max_new_tokens=8, progress=False)[0]
    table = results_table({("0.5b", "native", "int8"): [dict(line, seconds=2.0)]})
    assert "0.5B Coder pack · native · int8 (ours)" in repr(table) and "0.50" in repr(table)
    assert "Qwen2.5-0.5B-Instruct · FC (paper)" in repr(table) and "61.2" in repr(table)
    assert "parallel" in repr(families_table([line]))
    view = case_html(case, line, committed=line)
    assert "BFCL's verdict" in view.html and "the same reply" in view.html
    runner = case_runner(model)
    category, number, mode, button = runner.children[0].children
    category.value, number.value = "irrelevance", 500
    button.click()  # no such case: said, not raised
    assert "kitchen-bfcl-runner" in runner._dom_classes


def test_prompt_mode_decodes_python_without_tree_sitter():
    """BFCL's decoder module imports its Java and JavaScript parsers, which need tree-sitter; the
    learner set does not install it (no wheels for every Python), so stand-ins refuse those two."""
    code = ("import sys; sys.modules['tree_sitter'] = None\n"  # None in sys.modules: the import fails
            "from kitchen.bfcl.modes import bfcl_decode\n"
            "print([(c.name, c.arguments) for c in bfcl_decode('[math.hypot(x=3, y=4)]').calls])\n"
            "from bfcl_eval.model_handler.parser.java_parser import parse_java_function_call\n"
            "try:\n    parse_java_function_call('f(1)')\nexcept SyntaxError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["[('math.hypot', {'x': 3, 'y': 4})]",
                                       "Java calls need tree-sitter, which this project does not install "
                                       "(it asks Python only)"]
