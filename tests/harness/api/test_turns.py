"""One turn behind the APIs, on scripted replies: calls with ids, text, finish, and the stream's pieces
gluing to the whole reply; `strict` replies held to the schemas (a property test over 1,000 schemas)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from grammar_walker import GrammarWalker
from kitchen.harness.api.turns import ApiError, ChatRequest, grammar_for, run_turn, shown_text, stream_turn
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator, search_rhymes
from kitchen.tools.schemas import as_schema

TOOLS = [as_schema(calculator), as_schema(search_rhymes)]
ASK = [{"role": "user", "content": "What is 987 × 654?"}]
CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "987 * 654"}}\n</tool_call>'
REPLIES = {
    "text": "It is 645,498.",
    "text then call": "Let me work it out.\n" + CALL,
    "bare JSON": '{"name": "calculator", "arguments": {"expression": "987 * 654"}}',
    "fenced JSON": 'Sure:\n```json\n{"name": "calculator", "arguments": {"expression": "987*654"}}\n```',
    "two calls": CALL + "\n" + CALL.replace("987 * 654", "2 + 2"),
    "unreadable call": '<tool_call>\n{"name": "calculator", "arguments": {"expression": "987 * 654"\n</tool_call>',
    "unknown tool": '<tool_call>\n{"name": "weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "a brace in prose": "Use a dict:\n{ like this }",
}


def request(**kw) -> ChatRequest:
    return ChatRequest(**{"model": "m", "messages": ASK, "tools": TOOLS, **kw})


def streamed(reply: str, **kw) -> tuple[str, object]:
    events = list(stream_turn(ScriptedModel([reply]), request(**kw)))
    assert events[0][0] == "start" and events[-1][0] == "done"
    return "".join(v for k, v in events if k == "text"), events[-1][1]


@pytest.mark.parametrize("name", REPLIES)
def test_the_streamed_pieces_glue_to_the_whole_reply(name):
    whole = run_turn(ScriptedModel([REPLIES[name]]), request())
    text, turn = streamed(REPLIES[name])
    assert text == whole.content == turn.content
    assert [c.arguments for c in turn.calls] == [c.arguments for c in whole.calls]
    for call in turn.calls:
        assert "".join(call.fragments) == call.arguments
        assert json.loads(call.arguments) == call.input


def test_a_call_gets_an_id_its_name_and_the_arguments_as_written():
    turn = run_turn(ScriptedModel([REPLIES["two calls"]]), request())
    assert turn.finish == "tool_calls" and turn.content == ""
    assert [c.arguments for c in turn.calls] == ['{"expression": "987 * 654"}', '{"expression": "2 + 2"}']
    assert len({c.id for c in turn.calls}) == 2 and all(c.id.startswith("call_") for c in turn.calls)
    assert turn.raw == REPLIES["two calls"] and "<|im_start|>assistant" in turn.prompt


def test_text_is_shown_until_a_call_might_start():
    assert shown_text("Let me see.\n{") == "Let me see."
    assert shown_text("Let me see.\n```") == "Let me see."
    assert shown_text("A set {1, 2} is fine") == "A set {1, 2} is fine"
    assert shown_text("  padded  ") == "padded"


@pytest.mark.parametrize("name", ["unreadable call", "unknown tool"])
def test_a_call_the_server_cannot_use_comes_back_as_the_text_the_model_wrote(name):
    turn = run_turn(ScriptedModel([REPLIES[name]]), request())
    assert turn.calls == [] and turn.finish == "stop"
    assert turn.content == REPLIES[name] and turn.unread


def test_one_call_per_reply_unless_parallel_calls_are_asked_for():
    turn = run_turn(ScriptedModel([REPLIES["two calls"]]), request(parallel=False))
    assert len(turn.calls) == 1 and turn.raw == CALL  # generation stopped at the first </tool_call>


def test_a_reply_cut_by_max_tokens_finishes_with_length():
    turn = run_turn(ScriptedModel(["one two three four five six seven"]), request(max_tokens=3))
    assert turn.finish == "length" and turn.completion_tokens == 3


def test_a_stop_string_of_the_request_is_named():
    turn = run_turn(ScriptedModel(["Yes. END and more"]), request(stop=["END"]))
    assert turn.stop_string == "END" and turn.finish == "stop"


def test_a_tool_choice_naming_an_unknown_tool_is_a_400():
    with pytest.raises(ApiError) as err:
        grammar_for(request(choice={"name": "weather"}))
    assert err.value.status == 400 and "weather" in err.value.message


def test_without_strict_or_a_forced_choice_no_grammar_holds_the_reply():
    assert grammar_for(request()) == (None, "")
    assert grammar_for(request(strict=True))[1] == "auto"
    assert grammar_for(request(choice="required"))[1] == "required"


# --- strict: a property test over generated schemas -------------------------------------------

LEAVES = st.one_of(
    st.just({"type": "string"}),
    st.builds(lambda n: {"type": "string", "maxLength": n}, st.integers(1, 8)),
    st.builds(lambda vs: {"type": "string", "enum": vs}, st.lists(st.sampled_from(["red", "green", "blue", "a b"]),
                                                                  min_size=1, max_size=3, unique=True)),
    st.builds(lambda lo, span: {"type": "integer", "minimum": lo, "maximum": lo + span},
              st.integers(-50, 50), st.integers(0, 100)),
    st.just({"type": "number"}), st.just({"type": "boolean"}),
    st.just({"anyOf": [{"type": "string"}, {"type": "null"}]}),
)
NAMES = st.text("abcdefghij_", min_size=1, max_size=6)


def objects(children):
    return st.builds(lambda props, n: {"type": "object", "properties": props, "required": list(props)[:n],
                                       "additionalProperties": False},
                     st.dictionaries(NAMES, children, min_size=1, max_size=4), st.integers(0, 4))


SCHEMAS = objects(st.recursive(LEAVES, lambda inner: st.one_of(
    st.builds(lambda items, n: {"type": "array", "items": items, "maxItems": n}, inner, st.integers(1, 3)),
    objects(inner)), max_leaves=4))
# What the walker wants to write: arguments that may break the schema (a wrong type, an extra field,
# nothing at all), or no call.
WANTED = st.one_of(
    st.dictionaries(NAMES, st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.none()), max_size=4)
    .map(lambda args: '<tool_call>\n' + json.dumps({"name": "probe", "arguments": args}) + '\n</tool_call>'),
    st.just("I would rather not call anything."),
    st.just('{"name": "probe", "arguments": {}}'),
)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=SCHEMAS, wanted=WANTED, choice=st.sampled_from(["required", {"name": "probe"}, "auto"]), seed=st.integers(0, 9))
def test_strict_calls_always_validate_against_their_schema(schema, wanted, choice, seed):
    tool = {"type": "function", "function": {"name": "probe", "description": "A probe.", "parameters": schema}}
    turn = run_turn(GrammarWalker([wanted], seed), request(tools=[tool], strict=True, choice=choice, max_tokens=400))
    if choice != "auto":
        assert turn.finish == "tool_calls", (turn.raw, turn.unread)
    for call in turn.calls:
        assert call.name == "probe"
        jsonschema.validate(json.loads(call.arguments), schema)
    assert turn.finish != "length", turn.raw
