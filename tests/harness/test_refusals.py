"""The refusal texts, written once for every toolbox (no model, no server). The toolboxes' use of
them is tested in `tests/harness/test_toolbox.py`, the loop's in `tests/harness/test_loop.py`."""

from __future__ import annotations

from kitchen.harness import refusals


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


def test_the_notes_and_the_server_and_cap_texts_read_as_before():
    assert refusals.dropped_argument("user_id", "bob") == (
        "dropped user_id='bob' written by the model; the application supplies it")
    assert refusals.server_refused("f", -32602, "bad params") == (
        "the MCP server refused the call to f: JSON-RPC error -32602: bad params")
    assert refusals.too_many_calls(5, 15) == (
        "only the first 5 calls of a reply are run; the 15 after them were not. Call fewer tools at once.")
    assert refusals.too_many_errors(3, 7).startswith("7 more calls that did not parse were not reported, like the 3")


def test_the_structured_and_confirmation_texts():
    assert refusals.off_schema("count_words", "'3' is not of type 'integer' (at words)") == (
        "count_words returned a result that does not fit its output schema: '3' is not of type 'integer' "
        "(at words). The result was not used.")
    assert refusals.not_confirmed("delete_file", "the user declined") == (
        "delete_file did not run: the user declined. Do not call it again for this; tell the user what you "
        "would have done.")
