"""The refusal texts, written once, and the one call policy every toolbox runs (no model, no server)."""

from __future__ import annotations

import pytest

from app_tools import my_notes, save_memory
from kitchen.harness import refusals
from kitchen.harness.loop import run_harness
from kitchen.model.scripted import ScriptedModel
from kitchen.harness.toolbox import UNPARSED, LocalToolbox, Toolbox, ToolResult, error_result, parse_failure


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


def test_the_texts_read_as_before():
    assert refusals.hidden_tool("save_memory", ["a", "b"]) == (
        "the tool 'save_memory' is not available to you. Available tools: a, b.")
    assert refusals.unknown_tool("x", ["a"], " on the server") == (
        "there is no tool named 'x' on the server. Available tools: a.")
    assert refusals.injected_argument("my_notes", "user_id") == (
        "'user_id' is set by the application, not by you; call my_notes again without it.")
    assert refusals.invalid_arguments("f", "'x' is a required property", {"type": "object"}) == (
        "the arguments for f do not fit its schema: 'x' is a required property. Expected: {\"type\": \"object\"}")
    assert refusals.missing_context("f", "user_id") == "the application has no 'user_id' to give f."
    assert refusals.missing_context("f", "user_id", " (nothing here)") == (
        "the application has no 'user_id' to give f (nothing here).")
    assert refusals.timed_out("slow", 1.5) == "slow did not finish within 1.5 s and was abandoned."
    assert refusals.tool_failed("f", ValueError("no")) == "f failed: ValueError: no"
    assert refusals.unknown_on_server("x", ["a", "b"]).startswith(refusals.UNKNOWN_TOOL_ON_SERVER + ": x.")
    assert refusals.could_not_run("f", "it stopped").startswith("f could not run: it stopped. No result came back")
    assert refusals.repeated_call("f", "42").startswith(
        "you already called f with these arguments and got: 42 Do not")


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


def test_the_harness_answers_text_that_did_not_parse_with_a_parse_failure():
    model = ScriptedModel(['<tool_call>\n{"name": "save_memory", "arguments": {note: 1}}\n</tool_call>', "ok"])
    trace = run_harness(model, "question", [save_memory])
    (result,) = trace.results
    assert result.kind == "parse_error" and result.name == UNPARSED
    assert trace.messages[2]["role"] == "tool" and trace.messages[2]["name"] == UNPARSED


def test_a_repeated_call_is_answered_with_the_shared_text():
    call = '{"name": "save_memory", "arguments": {"note": "x"}}'
    trace = run_harness(ScriptedModel([call, call, "ok"]), "question", [save_memory])
    first, second = trace.results
    assert second.error_kind == "repeated_call"
    assert second.content == "Error (repeated_call): " + refusals.repeated_call("save_memory", first.content)


def test_a_policy_the_toolboxes_do_not_know_is_refused():
    with pytest.raises(ValueError):
        LocalToolbox([save_memory], injected_policy="maybe")
