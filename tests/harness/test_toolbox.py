"""The toolbox (`kitchen.harness.toolbox`): the one call policy every toolbox runs, local tools with
their hidden, injected and timed-out cases, and the pieces the policy is made of (no model)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest

from app_tools import my_notes, save_memory
from kitchen.harness import refusals
from kitchen.harness.loop import run_harness
from kitchen.model.scripted import ScriptedModel
from kitchen.harness.toolbox import (UNPARSED, LocalToolbox, Toolbox, ToolResult, arguments_error, as_content,
                                     drop_injected, error_result, parse_failure, run_with_timeout, schema_problem)
from kitchen.tools import calculator


def call(name, **arguments):
    return json.dumps({"name": name, "arguments": arguments})


def run(replies, tools, **options):
    model = ScriptedModel(replies)
    return model, run_harness(model, "question", tools, **options)


# --------------------------------------------------------------------------- the policy, on a recording toolbox

class Recording(Toolbox):
    """A toolbox that records which hooks the policy asked, and runs nothing for real."""

    def __init__(self, *, down: bool = False, policy: str = "reject"):
        self.hidden, self.injected_policy, self.timeout = ("secret",), policy, 3.0
        self.down, self.asked = down, []

    def schemas(self) -> list[dict]:
        return [{"type": "function", "function": {"name": "echo", "parameters": {}}}]

    def _listed(self, *, include_hidden: bool) -> list[str]:
        return ["echo", "secret"] if include_hidden else ["echo"]

    def _has(self, name: str) -> bool:
        self.asked.append("has")
        return name in ("echo", "secret")

    def _out_of_service(self, name: str, arguments: dict) -> ToolResult | None:
        self.asked.append("service")
        return error_result(name, arguments, "server_error", "down") if self.down else None

    def _injected_keys(self, name: str) -> list[str]:
        self.asked.append("injected")
        return ["user_id"]

    def _parameters(self, name: str) -> dict | None:
        self.asked.append("parameters")
        return {"type": "object", "properties": {"text": {"type": "string"}}}

    def _run(self, name: str, args: dict, arguments: dict, timeout: float) -> ToolResult:
        self.asked.append(f"run {timeout:g}")
        return ToolResult(name, arguments, True, repr(args), notes=["ran"])


def test_the_policy_runs_in_order_and_stops_at_the_first_refusal():
    box = Recording()
    assert box.call("secret", {}).error_kind == "hidden_tool" and box.asked == []
    box.asked.clear()
    assert box.call("nope", {}).error_kind == "unknown_tool" and box.asked == ["service", "has"]
    box.asked.clear()
    assert box.call("echo", {"user_id": "bob"}).error_kind == "injected_argument"
    assert box.asked == ["service", "has", "injected"]
    box.asked.clear()
    assert box.call("echo", {"text": 5}).error_kind == "invalid_arguments"
    box.asked.clear()
    result = box.call("echo", {"text": "hi"})
    assert result.ok and result.content == "{'text': 'hi'}" and box.asked == ["service", "has", "injected",
                                                                               "parameters", "run 3"]


def test_out_of_service_comes_after_hidden_and_before_unknown():
    box = Recording(down=True)
    assert box.call("secret", {}).error_kind == "hidden_tool"
    assert box.call("nope", {}).error_kind == "server_error" and "has" not in box.asked


def test_ignored_arguments_leave_a_note_before_the_tool_s_own_notes():
    result = Recording(policy="ignore").call("echo", {"text": "hi", "user_id": "bob"})
    assert result.ok and result.content == "{'text': 'hi'}"
    assert result.notes == [refusals.dropped_argument("user_id", "bob"), "ran"]


class Holding(Recording):
    """A recording toolbox whose application holds back every model's call of `echo` (`_held`)."""

    def _held(self, name: str, args: dict, arguments: dict) -> ToolResult | None:
        self.asked.append("held")
        return error_result(name, arguments, "not_confirmed", f"held back: {args}")


def test_a_held_call_never_runs_and_only_the_model_s_calls_are_held():
    box = Holding(policy="ignore")
    result = box.call("echo", {"text": "hi", "user_id": "bob"})
    assert result.error_kind == "not_confirmed" and result.content == "Error (not_confirmed): held back: {'text': 'hi'}"
    assert box.asked == ["service", "has", "injected", "parameters", "held"]  # last check, and nothing ran
    assert result.notes == [refusals.dropped_argument("user_id", "bob")]
    assert box.call("echo", {"text": 5}).error_kind == "invalid_arguments"  # a bad call is not held: refused first
    box.asked.clear()
    assert box._checked_call("echo", {"text": "hi"}, from_model=False).ok and "held" not in box.asked
    assert Recording().call("echo", {"text": "hi"}).ok  # nothing is held by default


def test_a_result_has_no_structured_value_unless_given_one_and_does_not_show_it():
    plain = ToolResult("f", {}, True, "42")
    assert plain.structured is None
    shaped = ToolResult("f", {}, True, '{"n": 42}', structured={"n": 42})
    assert shaped.structured == {"n": 42} and "structured" not in repr(shaped)


def test_the_application_may_name_hidden_tools_and_skips_the_injected_check():
    box = Recording()
    result = box._checked_call("secret", {"text": "x"}, from_model=False)
    assert result.ok and "injected" not in box.asked
    assert "secret" in box._checked_call("nope", {}, from_model=False).content


def test_arguments_that_are_not_an_object_count_as_none():
    box = LocalToolbox([save_memory], hidden=[my_notes])
    assert box.call("my_notes", "bob").arguments == {}
    assert box.call("save_memory", None).error_kind == "invalid_arguments"  # a dict, then the schema


def test_local_toolbox_messages_come_from_refusals():
    box = LocalToolbox([my_notes], hidden=[save_memory])
    assert box.call("save_memory", {}).content == (
        "Error (hidden_tool): " + refusals.hidden_tool("save_memory", ["my_notes"]))
    assert box.call("my_notes", {"query": "x"}).content == (
        "Error (missing_context): " + refusals.missing_context("my_notes", "user_id"))
    assert LocalToolbox([my_notes], context={"user_id": "ada"}).call("my_notes", {"query": "x"}).content == (
        "notes of ada about x")


def test_a_parse_failure_is_marked_by_its_kind_not_by_its_name():
    failed = parse_failure("truncated", "The call is not closed.")
    assert (failed.kind, failed.name, failed.ok, failed.error_kind) == ("parse_error", UNPARSED, False, "truncated")
    assert failed.content == "Error (truncated): The call is not closed."
    named_oddly = error_result("?", {}, "tool_error", "x")
    assert named_oddly.kind == "call"
    assert repr(failed).endswith("error_kind='truncated', notes=[])")  # printed results read as before


def test_a_policy_the_toolboxes_do_not_know_is_refused():
    with pytest.raises(ValueError):
        LocalToolbox([save_memory], injected_policy="maybe")


# --------------------------------------------------------------------------- local tools, through the loop

def slow(seconds: float) -> str:
    """Sleeps.

    Args:
        seconds: How long to sleep.
    """
    time.sleep(seconds)
    return "done"


def test_the_toolbox_checks_schemas_without_the_slow_iri_format_import():
    code = ("import sys, kitchen.harness.toolbox as t; box = t.LocalToolbox([__import__('kitchen.tools').tools.calculator]); "
            "print(sys.modules.get('rfc3987_syntax'), box.call('calculator', {'expression': 5}).error_kind)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["None", "invalid_arguments"]


def test_hidden_tool_is_not_shown_and_refused():
    box = LocalToolbox([calculator], hidden=[save_memory])
    assert box.names() == ["calculator"]
    model, trace = run([call("save_memory", note="x"), "ok"], box)
    (result,) = trace.results
    assert result.error_kind == "hidden_tool" and "save_memory" not in trace.steps[0].generation.prompt


def test_injected_identity_is_filled_in_and_not_in_the_schema():
    box = LocalToolbox([my_notes], context={"user_id": "alice"})
    assert "user_id" not in json.dumps(box.schemas())
    model, trace = run([call("my_notes", query="cats"), "ok"], box)
    assert trace.results[0].content == "notes of alice about cats"


def test_injected_identity_written_by_the_model_is_rejected_or_ignored():
    reply = call("my_notes", query="cats", user_id="mallory")
    _, trace = run([reply, "ok"], LocalToolbox([my_notes], context={"user_id": "alice"}))
    assert trace.results[0].error_kind == "injected_argument"
    _, trace = run([reply, "ok"], LocalToolbox([my_notes], context={"user_id": "alice"},
                                               injected_policy="ignore"))
    result = trace.results[0]
    assert result.ok and result.content == "notes of alice about cats" and "mallory" in result.notes[0]


def test_a_tool_that_runs_past_its_time_limit():
    t0 = time.perf_counter()
    model, trace = run([call("slow", seconds=5), "ok"], LocalToolbox([slow], timeout=0.3))
    (result,) = trace.results
    assert result.error_kind == "timeout" and time.perf_counter() - t0 < 3


# --------------------------------------------------------------------------- the pieces of the policy

def test_arguments_error_names_the_first_problem_and_where_it_is():
    parameters = {"type": "object", "required": ["n"], "properties": {
        "n": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}}}}
    assert arguments_error(parameters, {"n": 1, "items": ["a"]}) is None
    assert arguments_error(parameters, {"n": 1, "items": ["a", 2]}) == "2 is not of type 'string' (at items/1)"
    assert "'extra' was unexpected" in arguments_error(parameters, {"n": 1, "extra": 0})
    assert "additionalProperties" not in parameters  # unknown arguments are refused on a copy


def test_schema_problem_checks_any_value_against_any_schema():
    schema = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}
    assert schema_problem(schema, {"n": 1, "extra": 0}) is None  # extra fields only fail a closed schema
    assert schema_problem(schema, {"n": "1"}) == "'1' is not of type 'integer' (at n)"
    assert schema_problem(schema, []) == "[] is not of type 'object'"


def test_run_with_timeout_gives_the_value_the_exception_or_a_timeout():
    assert run_with_timeout(lambda: 42, 1.0) == ("ok", 42)
    status, err = run_with_timeout(lambda: 1 / 0, 1.0)
    assert status == "error" and isinstance(err, ZeroDivisionError)
    status, err = run_with_timeout(lambda: sys.exit(3), 1.0)  # even SystemExit stays in the worker
    assert status == "error" and isinstance(err, SystemExit)
    release = threading.Event()
    t0 = time.perf_counter()
    try:
        assert run_with_timeout(lambda: release.wait(10), 0.1) == ("timeout", None)
        assert time.perf_counter() - t0 < 2
    finally:
        release.set()


def test_a_result_reads_as_text_strings_as_they_are_the_rest_as_json():
    assert as_content("7006652") == "7006652"
    assert as_content({"word": "café", "n": [1, 2]}) == '{"word": "café", "n": [1, 2]}'
    assert as_content(None) == "null"


def test_injected_arguments_are_refused_or_dropped_without_touching_the_model_s():
    written = {"query": "x", "user_id": "bob"}
    refused = drop_injected("my_notes", written, ["user_id"], "reject")
    assert isinstance(refused, ToolResult) and refused.error_kind == "injected_argument"
    assert refused.arguments == written
    assert drop_injected("my_notes", written, ["user_id"], "ignore") == (
        {"query": "x"}, [refusals.dropped_argument("user_id", "bob")])
    assert written == {"query": "x", "user_id": "bob"}
    assert drop_injected("my_notes", {"query": "x"}, ["user_id"], "reject") == ({"query": "x"}, [])


def test_a_local_result_carries_the_model_s_arguments_not_the_filled_in_ones():
    result = LocalToolbox([my_notes], context={"user_id": "ada"}).call("my_notes", {"query": "x"})
    assert result.ok and result.content == "notes of ada about x"
    assert result.arguments == {"query": "x"} and result.error_kind is None


def test_a_hidden_local_function_never_runs_not_even_for_the_application():
    box = LocalToolbox([calculator], hidden=[save_memory])
    result = box._checked_call("save_memory", {"note": "x"}, from_model=False)
    assert result.error_kind == "unknown_tool" and not result.ok
