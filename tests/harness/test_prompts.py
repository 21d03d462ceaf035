"""Reading rendered prompts, tool costs and schema edits (the replay tokenizer, no model)."""

import json

import pytest

from kitchen.model.interface import TemplateChat
from kitchen.harness.prompts import edit_schema, preview_tools, prompt_parts, tool_costs, tools_block
from kitchen.model.tokenizer import offline_tokenizer
from kitchen.tools.schemas import tool_schema
from kitchen.tools import TOY_TOOLS, calculator, search_rhymes


class TemplateOnly(TemplateChat):
    """The real tokenizer and chat template, no weights."""

    def __init__(self, tier="0.5b"):
        self.tok = offline_tokenizer(tier)


@pytest.fixture(scope="module")
def model():
    return TemplateOnly()


MESSAGES = [{"role": "user", "content": "Which rhyme mentions a sheep?"}]


def test_parts_join_back_to_the_prompt_and_are_labelled(model):
    for tools in (None, [search_rhymes], TOY_TOOLS):
        prompt = model.render(MESSAGES, tools)
        parts = prompt_parts(prompt)
        assert "".join(text for _, text in parts) == prompt
        labels = [label for label, _ in parts]
        assert labels[-2:] == ["user turn", "start of the assistant turn"]
        if tools:
            assert labels[:4] == ["system text", "# Tools: heading and instruction",
                                  "<tools> block: one schema per line", "the call format it asks for"]
        else:
            assert labels[0] == "system text" and "# Tools" not in prompt


def test_every_schema_is_one_line_of_the_tools_block(model):
    block = tools_block(model.render(MESSAGES, TOY_TOOLS))
    lines = block.splitlines()[1:-1]
    assert [json.loads(line) for line in lines] == [tool_schema(f) for f in TOY_TOOLS]


def test_call_and_result_rendered_back(model):
    conversation = MESSAGES + [
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
            "name": "search_rhymes", "arguments": {"query": "sheep"}}}]},
        {"role": "tool", "name": "search_rhymes", "content": "Baa, Baa, Black Sheep"}]
    parts = dict(prompt_parts(model.render(conversation, [search_rhymes])))
    assert '<tool_call>\n{"name": "search_rhymes", "arguments": {"query": "sheep"}}\n</tool_call>' in parts["assistant turn"]
    assert parts["tool results (inside a user turn)"] == (
        "<|im_start|>user\n<tool_response>\nBaa, Baa, Black Sheep\n</tool_response><|im_end|>\n")


def test_token_facts(model):
    assert model.encode("<tool_call>") == [151657]
    assert model.encode("</tool_call>") == [151658]
    assert len(model.encode("<tool_response>")) == 4
    assert len(model.encode("<tools>")) == 3
    assert model.encode("1234") == [16, 17, 18, 19]


def test_costs_add_up_exactly(model):
    costs, preamble, base, everything = tool_costs(model, TOY_TOOLS)
    assert [c.name for c in costs] == [f.__name__ for f in TOY_TOOLS]
    assert preamble > 0 and all(c.description > 0 and c.parameters > 0 and c.structure > 0 for c in costs)
    assert base + preamble + sum(c.total for c in costs) == everything
    one, pre1, base1, with_one = tool_costs(model, [calculator])
    assert with_one == base + preamble + one[0].total


def test_edit_schema_changes_a_copy():
    original = tool_schema(search_rhymes)
    edited = edit_schema(original, description="Find rhymes.", add=("language", "string", "Which language."),
                         remove="limit")
    f = edited["function"]
    assert f["description"] == "Find rhymes." and "limit" not in f["parameters"]["properties"]
    assert f["parameters"]["required"] == ["query", "language"]
    assert original == tool_schema(search_rhymes)
    with pytest.raises(ValueError):
        edit_schema(original, add=("not a name", "string", ""))


def test_preview_tracks_the_edit(model):
    schema = tool_schema(search_rhymes)
    block, tokens = preview_tools(model, [schema])
    longer = edit_schema(schema, description=schema["function"]["description"] + " Extra words here.")
    block2, tokens2 = preview_tools(model, [longer])
    assert "Extra words here." in block2 and tokens2 > tokens
    shorter = edit_schema(schema, remove="limit")
    assert preview_tools(model, [shorter])[1] < tokens
