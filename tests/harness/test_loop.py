"""The loop, driven by a scripted model so that every branch is reached on purpose."""

import json

import pytest

from app_tools import save_memory
from kitchen.harness import refusals
from kitchen.harness.loop import CAP_MESSAGE, Harness, run_harness
from kitchen.harness.protocols import NativeProtocol
from kitchen.model.scripted import ScriptedModel
from kitchen.harness.toolbox import UNPARSED
from kitchen.tools import calculator, count_words, search_rhymes


def call(name, **arguments):
    return json.dumps({"name": name, "arguments": arguments})


def tagged(name, **arguments):
    return f"<tool_call>\n{call(name, **arguments)}\n</tool_call>"


def boom(text: str) -> str:
    """Always fails.

    Args:
        text: Anything.
    """
    raise RuntimeError("the tool broke")


def run(replies, tools, **options):
    model = ScriptedModel(replies)
    return model, run_harness(model, "question", tools, **options)


def test_plain_answer_ends_the_run_at_once():
    model, trace = run(["Just an answer."], [calculator])
    assert trace.stop_reason == "answer" and trace.answer == "Just an answer."
    assert len(trace.steps) == 1 and model.calls == 1
    assert trace.messages[-1] == {"role": "assistant", "content": "Just an answer."}


@pytest.mark.parametrize("written", [tagged("calculator", expression="1234 * 5678"),
                                     call("calculator", expression="1234 * 5678"),
                                     "```json\n" + call("calculator", expression="1234 * 5678") + "\n```"])
def test_call_result_answer(written):
    model, trace = run([written, "It is 7,006,652."], [calculator])
    assert trace.stop_reason == "answer" and trace.answer == "It is 7,006,652."
    (result,) = trace.results
    assert result.ok and result.content == "7006652" and result.name == "calculator"
    tool_message = trace.messages[-2]
    assert tool_message["role"] == "tool" and tool_message["content"].startswith("7006652\n\n")
    assistant = trace.messages[-3]
    assert assistant["tool_calls"][0]["function"] == {"name": "calculator",
                                                     "arguments": {"expression": "1234 * 5678"}}
    # The second prompt holds the result inside <tool_response> in a user turn.
    second_prompt = trace.steps[1].generation.prompt
    assert "<|im_start|>user\n<tool_response>\n7006652\n\nThis is the tool's result." in second_prompt


def test_generation_stops_at_the_end_of_a_call():
    model, trace = run([tagged("calculator", expression="2+2") + "\nand more text", "4"], [calculator])
    first = trace.steps[0].generation
    assert first.stop_reason == "stop_string" and first.text.endswith("</tool_call>")


def test_without_parallel_calls_the_reply_stops_after_its_first_call():
    two = tagged("calculator", expression="2+2") + "\n" + tagged("search_rhymes", query="sheep")
    model, trace = run([two, "done"], [calculator, search_rhymes],
                       protocol=NativeProtocol())
    # The stop string ends the reply after the first call: one call per step with native stops.
    assert [r.name for r in trace.results] == ["calculator"]


def test_parallel_calls_run_each_call_and_append_the_results_in_order():
    two = tagged("calculator", expression="2+2") + "\n" + tagged("calculator", expression="3*5")
    model, trace = run([two, "4 and 15."], [calculator], parallel_calls=True)
    first = trace.steps[0]
    assert first.generation.stop_reason == "end_of_turn"  # no stop at the first </tool_call>
    assert [r.content for r in trace.results] == ["4", "15"]
    assistant, *tools = first.appended
    assert [c["function"]["arguments"]["expression"] for c in assistant["tool_calls"]] == ["2+2", "3*5"]
    assert [m["content"].split("\n")[0] for m in tools] == ["4", "15"]
    prompt = trace.steps[1].generation.prompt  # both results, in one user turn, in order
    assert prompt.index("<tool_response>\n4\n") < prompt.index("<tool_response>\n15\n")
    assert prompt.count("<|im_start|>user\n<tool_response>") == 1


def test_the_calls_run_from_one_reply_are_capped():
    many = "\n".join(tagged("calculator", expression=f"{i}+1") for i in range(20))
    model, trace = run([many, "done"], [calculator], parallel_calls=True, max_calls=5, max_new_tokens=5000)
    results = trace.steps[0].results
    assert [r.content for r in results[:5]] == ["1", "2", "3", "4", "5"]
    assert len(results) == 6 and results[5].error_kind == "too_many_calls"
    assert "first 5 calls" in results[5].content and "15 after them" in results[5].content


def test_a_reply_of_thousands_of_broken_tags_feeds_back_a_few_errors_only():
    reply = "<tool_call>\n{\n</tool_call>\n" * 3000
    model, trace = run([reply, "done"], [calculator], parallel_calls=True, max_new_tokens=100_000)
    results = trace.steps[0].results
    assert len(results) == 4 and results[-1].error_kind == "too_many_errors"
    assert "2997 more calls" in results[-1].content
    fed_back = sum(len(m["content"]) for m in trace.steps[0].appended if m["role"] == "tool")
    assert fed_back < 3000  # bytes of error text; the uncapped harness appended about 78 KB


def test_unknown_tool_lists_the_known_ones():
    model, trace = run([call("calc", expression="1+1"), "ok"], [calculator, count_words])
    (result,) = trace.results
    assert not result.ok and result.error_kind == "unknown_tool"
    assert "calculator" in result.content and "count_words" in result.content


def test_malformed_json_goes_back_as_an_error():
    model, trace = run(['<tool_call>\n{"name": "calculator", "arguments": {expression: 1}}\n</tool_call>', "ok"],
                       [calculator])
    (result,) = trace.results
    assert not result.ok and result.error_kind == "malformed_json"
    assert trace.messages[-2]["role"] == "tool" and "malformed_json" in trace.messages[-2]["content"]


def test_the_harness_answers_text_that_did_not_parse_with_a_parse_failure():
    model = ScriptedModel(['<tool_call>\n{"name": "save_memory", "arguments": {note: 1}}\n</tool_call>', "ok"])
    trace = run_harness(model, "question", [save_memory])
    (result,) = trace.results
    assert result.kind == "parse_error" and result.name == UNPARSED
    assert trace.messages[2]["role"] == "tool" and trace.messages[2]["name"] == UNPARSED


def test_arguments_that_fail_the_schema():
    model, trace = run([call("calculator", expr="1+1"), call("calculator", expression=5), "ok"], [calculator])
    first, second = trace.results
    assert first.error_kind == "invalid_arguments" and "expression" in first.content
    assert second.error_kind == "invalid_arguments" and "string" in second.content


def test_a_tool_that_raises():
    model, trace = run([call("boom", text="x"), "ok"], [boom])
    (result,) = trace.results
    assert result.error_kind == "tool_error" and "the tool broke" in result.content


def test_a_tool_error_message_is_passed_on():
    model, trace = run([call("calculator", expression="1/0"), "ok"], [calculator])
    (result,) = trace.results
    assert result.error_kind == "tool_error" and "zero" in result.content.lower()


def test_a_repeated_call_is_answered_from_the_earlier_result():
    same = call("calculator", expression="2+2")
    model, trace = run([same, same, "4"], [calculator])
    first, second = trace.results
    assert first.ok and second.error_kind == "repeated_call" and "got: 4" in second.content
    model, trace = run([same, same, "4"], [calculator], refuse_repeats=False)
    assert all(r.ok for r in trace.results)


def test_a_repeated_call_is_answered_with_the_shared_text():
    call = '{"name": "save_memory", "arguments": {"note": "x"}}'
    trace = run_harness(ScriptedModel([call, call, "ok"]), "question", [save_memory])
    first, second = trace.results
    assert second.error_kind == "repeated_call"
    assert second.content == "Error (repeated_call): " + refusals.repeated_call("save_memory", first.content)


def test_the_cap_ends_the_run_with_a_message():
    replies = [call("calculator", expression=f"{i}+1") for i in range(10)]
    model, trace = run(replies, [calculator], max_steps=3)
    assert trace.stop_reason == "cap" and trace.answer == CAP_MESSAGE.format(n=3)
    assert model.calls == 3 and len(trace.results) == 2  # the third step's call is not run


def test_events_come_in_order_and_carry_the_trace():
    model = ScriptedModel([call("calculator", expression="2+2"), "4"])
    kinds = [e.kind for e in Harness(model, [calculator]).events([{"role": "user", "content": "2+2?"}])]
    assert kinds[0] == "prompt" and kinds[-1] == "answer"
    assert kinds.index("generated") < kinds.index("parsed") < kinds.index("result") < kinds.index("appended")
    assert kinds.count("prompt") == 2


def test_prompt_growth_is_recorded():
    model, trace = run([call("calculator", expression="2+2"), "4"], [calculator])
    first, second = trace.steps
    assert second.prompt_tokens > first.prompt_tokens
    assert second.prompt_added and "<tool_response>" in second.prompt_added


def test_result_note_is_appended_to_results_and_can_be_dropped():
    model, trace = run([call("calculator", expression="2+2"), "4"], [calculator],
                       protocol=NativeProtocol(result_note="Answer now."))
    assert trace.messages[-2]["content"] == "4\n\nAnswer now."
    model, trace = run([call("calculator", expression="2+2"), "4"], [calculator],
                       protocol=NativeProtocol(result_note=""))
    assert trace.messages[-2]["content"] == "4"


def test_an_empty_reply_gets_one_request_for_an_answer():
    from kitchen.harness.loop import EMPTY_NUDGE

    trace = run_harness(ScriptedModel(["", "It is 4."]), "What is 2 + 2?", [calculator])
    assert trace.stop_reason == "answer" and trace.answer == "It is 4."
    assert [m["content"] for m in trace.steps[0].appended] == ["", EMPTY_NUDGE]
    assert trace.steps[0].nudge == EMPTY_NUDGE and trace.steps[1].nudge == ""
    twice = run_harness(ScriptedModel(["", ""]), "What is 2 + 2?", [calculator])
    assert twice.stop_reason == "answer" and twice.answer == "" and len(twice.steps) == 2
    assert [s.nudge for s in twice.steps] == [EMPTY_NUDGE, ""]
    off = run_harness(ScriptedModel([""]), "What is 2 + 2?", [calculator], nudge_empty=False)
    assert len(off.steps) == 1 and off.answer == ""


def test_after_a_failed_call_the_harness_asks_for_a_fix_not_an_answer():
    from kitchen.harness.protocols import ANSWER_NOTE, ERROR_NOTE

    call = lambda **args: json.dumps({"name": "calculator", "arguments": args})
    trace = run_harness(ScriptedModel([call(expr="2 + 2"), call(expression="2 + 2"), "4"]), "2 + 2?", [calculator])
    failed, worked = (s.appended[-1]["content"] for s in trace.steps[:2])
    assert failed.endswith(ERROR_NOTE) and worked.endswith(ANSWER_NOTE)
