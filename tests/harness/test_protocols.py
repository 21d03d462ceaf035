"""Protocols: native and prompt-based tool calling through the same loop, driven by scripted replies."""

import ast
import builtins
import copy
import doctest
import json

import pytest

import kitchen.harness.protocols
from kitchen.harness.loop import run_harness
from kitchen.harness.parsing import FORMATS
from kitchen.harness.protocols import (ANSWER_NOTE, DEFAULT_SYSTEM, PROTOCOLS, CallTagProtocol, FencedJSONProtocol,
                               NativeProtocol, PromptProtocol, PythonCallProtocol, example_arguments)
from kitchen.tools.schemas import tool_schema
from kitchen.model.scripted import ScriptedModel
from kitchen.harness.toolbox import ToolResult, parse_failure
from kitchen.tools import TOY_TOOLS, calculator, search_rhymes

SCHEMAS = [tool_schema(fn) for fn in TOY_TOOLS]
CALC, RHYMES = tool_schema(calculator), tool_schema(search_rhymes)
MULTIPLY = {"expression": "1234 * 5678"}
PROMPT_CLASSES = [FencedJSONProtocol, PythonCallProtocol, CallTagProtocol]
ids = [cls.name for cls in PROMPT_CLASSES]

# The same call as each prompt format asks for it.
WELL_FORMED = {
    "fenced_json": '```tool_call\n{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}\n```',
    "python": '```python\ncalculator(expression="1234 * 5678")\n```',
    "call_tag": "<call calculator>1234 * 5678</call>",
}
# What small models write instead of what they were asked for.
DRIFTED = {
    "python, bare": 'calculator(expression="1234 * 5678")',
    "python, positional": 'I will use the tool: calculator("1234 * 5678")',
    "bare JSON": '{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}',
    "json fence": '```json\n{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}\n```',
    "Qwen tags": '<tool_call>\n{"name": "calculator", "arguments": {"expression": "1234 * 5678"}}\n</tool_call>',
    "call tag": "<call calculator>1234 * 5678</call>",
    "tool_call fence": WELL_FORMED["fenced_json"],
}


def own_kind(protocol_name: str) -> set[str]:
    """The drifted texts that are in fact the protocol's own format."""
    return {"fenced_json": {"tool_call fence"}, "python": {"python, bare", "python, positional"},
            "call_tag": {"call tag"}}[protocol_name]


def description(schema):
    return schema["function"]["description"]


# --------------------------------------------------------------------------- the system prompt

def test_registry():
    assert set(PROTOCOLS) == {"native", "fenced_json", "python", "call_tag"}
    assert all(p.name == key for key, p in PROTOCOLS.items())
    assert isinstance(PROTOCOLS["native"], NativeProtocol)
    assert all(isinstance(PROTOCOLS[c.name], c) and PROTOCOLS[c.name].robust for c in PROMPT_CLASSES)


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_the_prompt_describes_every_tool_from_its_schema(cls):
    prompt = cls().system_prompt(SCHEMAS)
    assert prompt.startswith(DEFAULT_SYSTEM + "\n\n# Tools\n\n" + cls.instructions)
    for schema in SCHEMAS:
        f = schema["function"]
        assert f["name"] in prompt and f["description"] in prompt
        for name, prop in f["parameters"]["properties"].items():
            assert name in prompt and prop["description"] in prompt


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_the_prompt_changes_with_the_schema(cls):
    protocol = cls()
    changed = copy.deepcopy(CALC)
    changed["function"]["description"] = "Adds up grocery bills to the penny."
    changed["function"]["parameters"]["properties"]["expression"]["description"] = "The bill, e.g. \"3 + 4\"."
    before, after = protocol.system_prompt([CALC]), protocol.system_prompt([changed])
    assert before != after
    assert description(CALC) in before and description(CALC) not in after
    assert "Adds up grocery bills to the penny." in after and "The bill, e.g." in after
    # The example call is generated from the schema too: a placeholder until the schema gives an example.
    assert "For example:" in before and "..." in before.split("For example:")[1].split("The tools")[0]
    assert "3 + 4" in after


def test_required_and_optional_parameters_and_their_types():
    for cls in (FencedJSONProtocol, CallTagProtocol):
        prompt = cls().system_prompt([RHYMES])
        assert '"query" (string, required)' in prompt and '"limit" (integer, optional)' in prompt
    prompt = PythonCallProtocol().system_prompt([RHYMES])
    assert "def search_rhymes(query: str, limit: int | None = None):" in prompt
    assert "limit: (optional) The most results" in prompt


def test_python_tools_are_valid_python_with_the_schema_as_docstrings():
    catalogue = PythonCallProtocol().catalogue(SCHEMAS)
    assert catalogue.startswith("```python\n") and catalogue.endswith("\n```")
    tree = ast.parse(catalogue.removeprefix("```python\n").removesuffix("\n```"))
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert [fn.name for fn in functions] == [s["function"]["name"] for s in SCHEMAS]
    for fn, schema in zip(functions, SCHEMAS):
        assert [a.arg for a in fn.args.args] == list(schema["function"]["parameters"]["properties"])
        assert ast.get_docstring(fn).startswith(description(schema))


def test_a_tool_without_parameters():
    schema = {"type": "function", "function": {"name": "now", "description": "The time.",
                                               "parameters": {"type": "object", "properties": {}}}}
    for cls in PROMPT_CLASSES:
        protocol = cls(robust=False)
        prompt = protocol.system_prompt([schema])
        assert "now" in prompt and "The time." in prompt
        call = protocol.write_call(schema, {})
        (found,) = protocol.detect(call, [schema]).calls
        assert (found.name, found.arguments) == ("now", {})


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_no_tools_go_to_the_template(cls):
    protocol = cls()
    messages = [{"role": "user", "content": "What is 1234 * 5678?"}]
    model_messages, template_tools = protocol.prepare(messages, SCHEMAS)
    assert template_tools is None
    assert model_messages == [{"role": "system", "content": protocol.system_prompt(SCHEMAS)}] + messages
    assert messages == [{"role": "user", "content": "What is 1234 * 5678?"}]  # not changed in place
    prompt = ScriptedModel([]).render(model_messages, template_tools)
    assert "<tools>" not in prompt and "<tool_call>" not in prompt and "You are Qwen" not in prompt
    assert protocol.system_prompt(SCHEMAS) in prompt
    # The native protocol, for contrast, hands the schemas to the template.
    assert NativeProtocol().prepare(messages, SCHEMAS) == (messages, SCHEMAS)


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_an_existing_system_message_is_kept_and_extended(cls):
    protocol = cls()
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    model_messages, _ = protocol.prepare(messages, [CALC])
    assert model_messages[0] == {"role": "system", "content": "Be brief.\n\n" + protocol.tools_prompt([CALC])}
    assert model_messages[1:] == messages[1:] and messages[0]["content"] == "Be brief."
    assert protocol.prepare(messages, []) == (messages, None)  # no tools: nothing to describe


def test_the_system_line_can_be_chosen():
    protocol = CallTagProtocol(system="You are a careful maths tutor.")
    assert protocol.system_prompt([CALC]).startswith("You are a careful maths tutor.\n\n# Tools")
    assert CallTagProtocol(system="").system_prompt([CALC]).startswith("# Tools")


# --------------------------------------------------------------------------- writing and finding calls

@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
@pytest.mark.parametrize("schema", SCHEMAS, ids=[s["function"]["name"] for s in SCHEMAS])
def test_the_example_call_is_read_back_strictly(cls, schema):
    protocol = cls(robust=False)
    arguments = example_arguments(schema)
    assert arguments  # every toy tool gets a concrete example
    (call,) = protocol.detect(protocol.write_call(schema, arguments), SCHEMAS).calls
    assert (call.name, call.arguments, call.format) == (schema["function"]["name"], arguments, cls.own_formats[0])


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
@pytest.mark.parametrize("arguments", [{"query": "star", "limit": 2}, {"query": 'say "hi" {now}'},
                                       {"query": "line one\nline two"}])
def test_written_calls_are_read_back(cls, arguments):
    protocol = cls(robust=False)
    result = protocol.detect("Let me look.\n" + protocol.write_call(RHYMES, arguments), SCHEMAS)
    (call,) = result.calls
    assert (call.name, call.arguments) == ("search_rhymes", arguments) and not result.errors
    assert result.prose == "Let me look."


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_a_call_ends_with_the_stop_string_and_only_there(cls):
    protocol = cls()
    for schema in SCHEMAS:
        written = protocol.write_call(schema, example_arguments(schema))
        (stop,) = protocol.stop
        assert written.count(stop) == 1 and written.endswith(stop)


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_well_formed_calls_are_found(cls):
    for robust in (True, False):
        (call,) = cls(robust=robust).detect(WELL_FORMED[cls.name], SCHEMAS).calls
        assert (call.name, call.arguments) == ("calculator", MULTIPLY)


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
@pytest.mark.parametrize("kind", DRIFTED)
def test_drift_is_caught_by_robust_detection_only(cls, kind):
    text = DRIFTED[kind]
    (call,) = cls(robust=True).detect(text, SCHEMAS).calls
    assert (call.name, call.arguments) == ("calculator", MULTIPLY)
    strict = cls(robust=False).detect(text, SCHEMAS)
    assert strict.found == (kind in own_kind(cls.name))


def test_robust_means_every_format():
    for cls in PROMPT_CLASSES:
        assert cls().formats == FORMATS and cls(robust=False).formats == cls.own_formats
        assert repr(cls(robust=False)) == f"{cls.__name__}(robust=False)"


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_plain_answers_are_not_calls(cls):
    for text in ["1234 * 5678 = 7,006,652.", "Use a calculator for that.", "The config is {\"debug\": true}.",
                 "```python\nprint(1234 * 5678)\n```", "I would call the calculator tool (if I had one)."]:
        for robust in (True, False):
            assert not cls(robust=robust).detect(text, SCHEMAS).found


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_broken_calls_are_errors_not_answers(cls):
    broken = {"fenced_json": '```tool_call\n{"name": "calculator", "arguments": {expression: 1}}\n```',
              "python": "```python\ncalculator(expression=1234 * 5678)\n```",
              "call_tag": "<call calculator>1234 * 5678"}[cls.name]
    for robust in (True, False):
        result = cls(robust=robust).detect(broken, SCHEMAS)
        assert not result.calls and len(result.errors) == 1


HOSTILE = [
    "calculator(kitchen_sentinel())",
    "calculator(expression=kitchen_sentinel())",
    '```python\ncalculator(expression=__import__("builtins").kitchen_sentinel())\n```',
    "search_rhymes(**{'query': kitchen_sentinel()})",
    "calculator(lambda: kitchen_sentinel())",
    '<call calculator>{"expression": kitchen_sentinel()}</call>',
    '```tool_call\n{"name": "calculator", "arguments": kitchen_sentinel()}\n```',
    "```tool_call\n" + "{" * 5_000,
    "<call calculator>" * 2_000,
    "calculator(" * 2_000,
    "```" * 2_000,
    "<call " + "x" * 10_000,
    "\x00\u202e<call calculator>\u2028</call>",
    "",
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_never_raises_and_never_runs(text, monkeypatch):
    ran: list[int] = []
    monkeypatch.setattr(builtins, "kitchen_sentinel", lambda: ran.append(1) or "1 + 1", raising=False)
    for cls in PROMPT_CLASSES:
        for robust in (True, False):
            result = cls(robust=robust).detect(text, SCHEMAS)
            assert all(c.arguments != {"expression": "1 + 1"} for c in result.calls)
    assert ran == []


def test_code_in_a_python_call_is_refused_by_the_whole_loop(monkeypatch):
    ran: list[int] = []
    monkeypatch.setattr(builtins, "kitchen_sentinel", lambda: ran.append(1) or "2 + 2", raising=False)
    model = ScriptedModel(["```python\ncalculator(expression=kitchen_sentinel())\n```", "I could not compute it."])
    trace = run_harness(model, "What is 2 + 2?", [calculator], protocol=PythonCallProtocol())
    (result,) = trace.results
    assert not result.ok and result.error_kind == "not_literal" and ran == []
    assert trace.stop_reason == "answer"


# --------------------------------------------------------------------------- results

RESULT = ToolResult("calculator", MULTIPLY, True, "7006652")


@pytest.mark.parametrize("cls, block", [
    (FencedJSONProtocol, "```tool_result\n7006652\n```"),
    (PythonCallProtocol, "```output\n7006652\n```"),
    (CallTagProtocol, "<result calculator>7006652</result>"),
], ids=ids)
def test_result_messages(cls, block):
    protocol = cls()
    text = WELL_FORMED[cls.name]
    parsed = protocol.detect(text, SCHEMAS)
    assistant, user = protocol.turn_messages(text, parsed, [RESULT])
    assert assistant == {"role": "assistant", "content": text}
    assert user == {"role": "user", "content": f"{block}\n\n{ANSWER_NOTE}"}
    _, user = cls(result_note="").turn_messages(text, parsed, [RESULT, RESULT])
    assert user["content"] == f"{block}\n\n{block}"


def test_a_result_for_a_call_that_did_not_parse():
    failed = parse_failure("truncated", "The call is not closed.")
    assert CallTagProtocol().result_text(failed) == "<result>Error (truncated): The call is not closed.</result>"


@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_an_invented_result_is_cut_from_the_turn(cls):
    protocol = cls()
    text = WELL_FORMED[cls.name] + "\n" + protocol.result_text(ToolResult("calculator", {}, True, "42")) + "\nIt is 42."
    parsed = protocol.detect(text, SCHEMAS)
    assistant, _ = protocol.turn_messages(text, parsed, [RESULT])
    assert assistant["content"] == WELL_FORMED[cls.name]


# --------------------------------------------------------------------------- the whole loop

@pytest.mark.parametrize("cls", PROMPT_CLASSES, ids=ids)
def test_the_loop_runs_with_each_prompt_protocol(cls):
    protocol = cls()
    # The script goes on to invent a result: the stop string must end the reply before it.
    first = "I will use the calculator.\n" + WELL_FORMED[cls.name] + "\nThe result is 42."
    model = ScriptedModel([first, "1234 * 5678 = 7,006,652."])
    trace = run_harness(model, "What is 1234 * 5678?", [calculator, search_rhymes], protocol=protocol)
    assert trace.stop_reason == "answer" and trace.answer == "1234 * 5678 = 7,006,652."
    (result,) = trace.results
    assert result.ok and result.name == "calculator" and result.content == "7006652"
    step = trace.steps[0].generation
    assert step.stop_reason == "stop_string" and "42" not in step.text

    user, assistant, results, answer = trace.messages
    assert assistant == {"role": "assistant", "content": "I will use the calculator.\n" + WELL_FORMED[cls.name]}
    assert results == {"role": "user", "content": f"{protocol.result_text(result)}\n\n{ANSWER_NOTE}"}
    assert answer == {"role": "assistant", "content": "1234 * 5678 = 7,006,652."}

    second_prompt = trace.steps[1].generation.prompt
    assert f"<|im_start|>user\n{protocol.result_text(result)}" in second_prompt
    assert "<tools>" not in second_prompt and "<tool_response>" not in second_prompt
    assert protocol.system_prompt([CALC, RHYMES]) in second_prompt


def test_a_drifted_reply_is_run_by_robust_detection_and_missed_by_strict():
    drifted = 'calculator(expression="1234 * 5678")'
    trace = run_harness(ScriptedModel([drifted, "It is 7,006,652."]), "What is 1234 * 5678?", [calculator],
                        protocol=FencedJSONProtocol())
    assert [r.content for r in trace.results] == ["7006652"] and trace.answer == "It is 7,006,652."

    # Strict: the call is taken for the final answer, and no tool ever runs.
    trace = run_harness(ScriptedModel([drifted, "It is 7,006,652."]), "What is 1234 * 5678?", [calculator],
                        protocol=FencedJSONProtocol(robust=False))
    assert trace.results == [] and trace.stop_reason == "answer" and trace.answer == drifted


def test_the_native_detector_that_only_knows_tags_misses_bare_json():
    bare = DRIFTED["bare JSON"]
    trace = run_harness(ScriptedModel([bare, "It is 7,006,652."]), "What is 1234 * 5678?", [calculator],
                        protocol=NativeProtocol(formats=("qwen",)))
    assert trace.results == [] and trace.answer == bare


def test_module_examples():
    assert doctest.testmod(kitchen.harness.protocols).failed == 0


def test_prompt_protocol_is_the_base_of_the_formats():
    assert all(issubclass(cls, PromptProtocol) for cls in PROMPT_CLASSES)
    with pytest.raises(NotImplementedError):
        PromptProtocol().write_call(CALC, {})
    assert json.loads(FencedJSONProtocol().write_call(CALC, MULTIPLY).split("\n")[1]) == {
        "name": "calculator", "arguments": MULTIPLY}
