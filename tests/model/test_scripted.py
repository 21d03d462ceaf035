"""The scripted model: fixed replies in order, tokenized for real, and announced as scripted."""

import pytest

from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator

MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]
CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>'


def test_replies_come_in_order_and_then_the_script_says_it_has_ended():
    model = ScriptedModel([CALL, "It is 4."])
    texts = [model.generate(MESSAGES).text for _ in range(3)]
    assert texts == [CALL, "It is 4.", "(the script has ended)"] and model.calls == 3


def test_a_reply_ends_its_turn_with_the_end_token_and_its_pieces_add_up_to_the_text():
    model = ScriptedModel(["It is 4 🎉."])
    gen = model.generate(MESSAGES)
    end = model.tok.convert_tokens_to_ids("<|im_end|>")
    assert gen.stop_reason == "end_of_turn" and gen.token_ids[-1] == end and gen.tokens[-1].text == ""
    assert "".join(t.text for t in gen.tokens) == gen.text == "It is 4 🎉."
    assert gen.token_ids[:-1] == model.encode("It is 4 🎉.")


def test_a_stop_string_cuts_the_reply_after_it_and_no_end_token_follows():
    model = ScriptedModel([CALL + "\nAnd more."])
    gen = model.generate(MESSAGES, stop=["</tool_call>"])
    assert gen.text == CALL and gen.stop_reason == "stop_string" and gen.stop_string == "</tool_call>"
    assert model.tok.convert_tokens_to_ids("<|im_end|>") not in gen.token_ids


def test_the_prompt_is_the_chat_template_with_the_tools():
    model = ScriptedModel(["4."])
    gen = model.generate(MESSAGES, [calculator], prefix="<tool_call>\n")
    assert gen.prompt == model.render(MESSAGES, [calculator], prefix="<tool_call>\n")
    assert '"name": "calculator"' in gen.prompt and gen.prompt_ids == model.encode(gen.prompt)
    assert gen.prefilled_tokens == len(gen.prompt_ids)


def test_a_grammar_is_refused_since_fixed_replies_cannot_follow_one():
    with pytest.raises(ValueError, match="no grammar can hold them"):
        ScriptedModel(["4."]).generate(MESSAGES, grammar='start: "4."')


def test_it_never_passes_for_a_model():
    model = ScriptedModel(["a", "b"], tier="1.5b")
    assert model.info.source == "scripted" and model.info.dtype == "none" and model.info.tier == "1.5b"
    assert "Scripted model: 2 fixed replies" in model.describe() and "no model runs" in model.describe()
    assert model.tok.chat_template != ScriptedModel([]).tok.chat_template  # the 1.5B pack's own template
