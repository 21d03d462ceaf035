"""Grammar-constrained decoding on a tiny random model: each tool_choice, dead ends, bad schemas.

A random model wants to write nonsense, so whatever it writes under a grammar shows what the
grammar alone guarantees.
"""

import json

import jsonschema
import pytest

from kitchen.grammar.calls import (CALL_OPEN, GrammarError, auto_trigger, call_grammar, call_object_schema,
                             choice_name, chosen_tools)
from kitchen.harness.loop import Harness, run_harness
from kitchen.harness.parsing import parse_tool_calls
from kitchen.harness.protocols import FencedJSONProtocol, PythonCallProtocol
from kitchen.model.replay.runs import generation_from_run, run_from_generation, run_key
from kitchen.tools.schemas import as_schema
from kitchen.model.scripted import ScriptedModel
from kitchen.harness.toolbox import LocalToolbox
from kitchen.tools import TOY_TOOLS, calculator, search_rhymes
from tiny import tiny_model

QUESTIONS = ["What is 987 × 654?", "Which files are in the notes folder?", "Hello!"]
SCHEMAS = {as_schema(t)["function"]["name"]: as_schema(t) for t in TOY_TOOLS}


class BoundedToolbox(LocalToolbox):
    """The toy tools with every string argument capped at 12 characters and every integer at
    0..999 in the schemas the model (and the grammar) sees: a random model never closes an
    unbounded string, or ends a number, on its own."""

    def schemas(self):
        out = json.loads(json.dumps(super().schemas()))
        for schema in out:
            for prop in schema["function"]["parameters"]["properties"].values():
                if prop.get("type") == "string":
                    prop["maxLength"] = 12
                if prop.get("type") == "integer":
                    prop.update(minimum=0, maximum=999)
        return out


@pytest.fixture(scope="module")
def model():
    return tiny_model()


def first_step(model, question, **options):
    trace = run_harness(model, question, BoundedToolbox(TOY_TOOLS), max_steps=2, max_new_tokens=80,
                        **options)
    return trace, trace.steps[0]


def assert_valid_call(call):
    assert call.name in SCHEMAS
    jsonschema.validate(call.arguments, SCHEMAS[call.name]["function"]["parameters"])


@pytest.mark.parametrize("question", QUESTIONS)
def test_required_always_yields_a_valid_call_in_tags(model, question):
    trace, step = first_step(model, question, tool_choice="required")
    assert step.generation.token_ids[0] == CALL_OPEN and step.generation.stop_reason == "stop_string"
    assert len(step.parsed.calls) == 1 and not step.parsed.errors
    assert_valid_call(step.parsed.calls[0])
    assert step.tool_choice == "required" and len(step.results) == 1


@pytest.mark.parametrize("choice", [{"name": "search_rhymes"},
                                    {"type": "function", "function": {"name": "search_rhymes"}}])
def test_a_named_tool_is_the_only_one_callable(model, choice):
    for question in QUESTIONS:
        _, step = first_step(model, question, tool_choice=choice)
        assert [c.name for c in step.parsed.calls] == ["search_rhymes"]
        assert_valid_call(step.parsed.calls[0])


def test_none_masks_the_call_token_and_runs_nothing(model):
    trace, step = first_step(model, QUESTIONS[0], tool_choice="none")
    assert CALL_OPEN not in step.generation.token_ids
    assert trace.results == [] and trace.stop_reason == "answer" and step.tool_choice == "none"
    c = model.constraint(call_grammar(TOY_TOOLS, "none"))
    assert not bool(c.allowed()[CALL_OPEN])


def test_none_never_runs_even_a_call_the_text_holds(model):
    """Under "none" a call written without the tag is shown as the answer, not run."""
    grammar_free = '{"name": "calculator", "arguments": {"expression": "1 + 1"}}'
    harness = Harness(model, TOY_TOOLS, tool_choice="none", max_steps=2, max_new_tokens=40)
    trace = harness.run([{"role": "user", "content": grammar_free}])
    assert trace.results == [] and trace.steps[0].parsed.calls == []


def test_auto_holds_a_started_call_to_the_schemas(model):
    """Under "auto" the reply is free text or a valid call, whichever way the call starts."""
    for question in QUESTIONS:
        _, step = first_step(model, question, tool_choice="auto")
        trigger = auto_trigger(step.text, step.generation.token_ids)
        if trigger == "free text":
            assert not step.text[:1].isspace() and step.text[:1] not in "{`"
        else:
            assert len(step.parsed.calls) == 1
            assert_valid_call(step.parsed.calls[0])


def test_auto_cannot_start_free_text_with_a_call_opening(model):
    c = model.constraint(call_grammar(TOY_TOOLS, "auto"))
    allowed = c.allowed()
    brace, fence, space = (model.encode(s)[0] for s in ("{", "```", " "))
    assert bool(allowed[CALL_OPEN]) and bool(allowed[brace]) and bool(allowed[fence])
    assert not bool(allowed[space])
    assert not bool(allowed[model.encode(' {"')[0]])


def test_later_steps_are_auto_so_the_model_can_answer(model):
    trace = run_harness(model, QUESTIONS[0], BoundedToolbox(TOY_TOOLS), tool_choice="required", max_steps=3,
                        max_new_tokens=60)
    assert [s.tool_choice for s in trace.steps][:2] == ["required", "auto"]


def test_a_dead_end_stops_with_its_own_reason(model):
    # The grammar allows only token 151700, one of the output layer's padding ids, which are never
    # allowed: no token is left.
    gen = model.generate([{"role": "user", "content": "Hi"}], grammar="start: <[151700]>\n",
                         max_new_tokens=10)
    assert gen.stop_reason == "grammar_dead_end" and gen.token_ids == []


def recursive_and_unsupported_tools():
    node = as_schema(search_rhymes)
    node["function"]["parameters"]["properties"]["query"] = {"$ref": "#/$defs/node"}
    node["function"]["parameters"]["$defs"] = {"node": {"type": "object", "properties": {
        "next": {"$ref": "#/$defs/node"}}, "additionalProperties": False}}
    lookaround = as_schema(calculator)
    lookaround["function"]["name"] = "strict_calculator"
    lookaround["function"]["parameters"]["properties"]["expression"]["pattern"] = "(?<=a)b"
    return node, lookaround


def test_a_recursive_ref_compiles(model):
    node, _ = recursive_and_unsupported_tools()
    assert "$defs" in call_object_schema(node)
    gen = model.generate([{"role": "user", "content": "Hi"}], grammar=call_grammar([node]),
                         max_new_tokens=30)
    # The query is a node: an object whose only key is "next" (this model closes it at once).
    assert gen.text.startswith('<tool_call>\n{"name": "search_rhymes", "arguments": {"query": {')


def test_a_schema_the_compiler_rejects_names_the_tool_and_the_part(model):
    _, lookaround = recursive_and_unsupported_tools()
    with pytest.raises(GrammarError, match=r"tool 'strict_calculator'.*look-around"):
        call_grammar([calculator, lookaround], "auto")
    with pytest.raises(GrammarError, match="strict_calculator"):
        run_harness(model, "Hi", ListedAs(lookaround), tool_choice="required")


class ListedAs(LocalToolbox):
    """The calculator, listed to the model under another schema."""

    def __init__(self, schema):
        super().__init__([calculator])
        self.listed = schema

    def schemas(self):
        return [self.listed]


def test_the_harness_falls_back_only_when_asked():
    _, lookaround = recursive_and_unsupported_tools()
    model = ScriptedModel(["No tools today."])
    trace = Harness(model, ListedAs(lookaround), tool_choice="required",
                    grammar_fallback=True).run([{"role": "user", "content": "Hi"}])
    step = trace.steps[0]
    assert step.tool_choice == "" and "strict_calculator" in step.grammar_error
    assert trace.answer == "No tools today."


@pytest.mark.parametrize("protocol", [FencedJSONProtocol(), PythonCallProtocol()])
def test_a_constrained_prompt_format_parses(model, protocol):
    for question in QUESTIONS:
        trace, step = first_step(model, question, tool_choice="required", protocol=protocol)
        assert step.tool_choice == "required"
        strict = parse_tool_calls(step.text, protocol.own_formats, tools=TOY_TOOLS)
        assert len(strict.calls) == 1 and not strict.errors, step.text
        assert_valid_call(strict.calls[0])


def test_prompt_formats_hold_calls_only():
    with pytest.raises(GrammarError, match="'auto'"):
        call_grammar(TOY_TOOLS, "auto", "python")
    with pytest.raises(GrammarError, match="format 'call_tag'"):
        call_grammar(TOY_TOOLS, "required", "call_tag")


def test_bad_choices_are_clear():
    with pytest.raises(GrammarError, match="not one of the tools"):
        chosen_tools(TOY_TOOLS, {"name": "weather"})
    with pytest.raises(GrammarError, match="'sometimes'"):
        choice_name("sometimes")
    with pytest.raises(GrammarError, match="tool_choice"):
        Harness(ScriptedModel([]), TOY_TOOLS, tool_choice={"tool": "x"})
    with pytest.raises(ValueError, match="scripted model"):
        run_harness(ScriptedModel(["x"]), "Hi", TOY_TOOLS, tool_choice="required")


def test_candidates_say_what_the_mask_removed(model):
    gen = model.generate([{"role": "user", "content": "Hi"}], grammar=call_grammar(TOY_TOOLS),
                         max_new_tokens=40, top_k=5)
    for token in gen.tokens:
        flags = [c.allowed for c in token.top]
        assert all(f is not None for f in flags)
        allowed = [c for c in token.top if c.allowed]
        if allowed:  # the model's most likely allowed candidate is the token chosen
            assert allowed[0].token_id == token.token_id
    assert any(c.allowed is False for t in gen.tokens for c in t.top), "a random model fights the mask"
    free = model.generate([{"role": "user", "content": "Hi"}], max_new_tokens=3, top_k=2)
    assert all(c.allowed is None for t in free.tokens for c in t.top)


def test_grammar_runs_are_recorded_apart_and_read_back(model):
    grammar = call_grammar(TOY_TOOLS)
    gen = model.generate([{"role": "user", "content": "Hi"}], grammar=grammar, max_new_tokens=30, top_k=5)
    assert run_key(gen.prompt, 30, []) != run_key(gen.prompt, 30, [], grammar)
    assert run_key(gen.prompt, 30, []) == run_key(gen.prompt, 30, [], None)  # old keys unchanged
    run = json.loads(json.dumps(run_from_generation(gen, kind="generate", key="k", messages=[],
                                                    tools=[], prefix="", settings={})))
    back = generation_from_run(run)
    assert [[c.allowed for c in t.top] for t in back.tokens] == [[c.allowed for c in t.top]
                                                                 for t in gen.tokens]


def accepts(model, grammar: str, text: str) -> bool:
    """Whether `grammar` lets the model write `text` token by token (and then end the reply)."""
    constraint = model.constraint(grammar)
    for token_id in model.encode(text) + [model.tok.convert_tokens_to_ids("<|im_end|>")]:
        if not constraint.allowed()[token_id]:
            return False
        constraint.consume(token_id)
    return True


@pytest.mark.parametrize("choice", ["required", "auto"])
def test_several_calls_in_one_reply_only_when_the_option_is_on(model, choice):
    tools = [calculator, search_rhymes]
    two = ('<tool_call>\n{"name": "calculator", "arguments": {"expression": "2 + 2"}}\n</tool_call>\n'
           '<tool_call>\n{"name": "search_rhymes", "arguments": {"query": "star"}}\n</tool_call>')
    text = two  # the tokenizer reads <tool_call> and </tool_call> as their special tokens
    assert accepts(model, call_grammar(tools, choice, parallel=True), text)
    assert not accepts(model, call_grammar(tools, choice), text)
    one = text.split("\n<tool_call>")[0]
    assert accepts(model, call_grammar(tools, choice, parallel=True), one)


def test_a_parallel_constrained_reply_parses_into_valid_calls(model):
    trace, step = first_step(model, QUESTIONS[0], tool_choice="required", parallel_calls=True)
    assert step.parsed.calls
    for call in step.parsed.calls:
        assert_valid_call(call)
    # A random model may go on writing calls until its budget ends: only the last one is cut off.
    if step.generation.stop_reason == "end_of_turn":
        assert not step.parsed.errors
    else:
        assert [e.kind for e in step.parsed.errors] == ["truncated"]
