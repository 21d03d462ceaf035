"""A transformers model running here (a tiny random one): the system-turn switch, batches, scores, a lean step."""

import math

import pytest
import torch

from kitchen.model.interface import ModelInfo
from kitchen.model.live import MIN_SHARED, LiveModel
from kitchen.model.generation import common_prefix
from kitchen.model.tokenizer import offline_tokenizer
from tiny import tiny_hf_model

MESSAGES = [{"role": "user", "content": "What is 1234 × 5678?"}]
INFO = ModelInfo("0.5b", "tiny-random-qwen2", "pack", "built from a config in tests/tiny.py", "float32")


class Counting:
    """A transformers model that notes how many tokens each call runs through it."""

    def __init__(self, hf):
        self.hf, self.config, self.lengths = hf, hf.config, []

    def __call__(self, input_ids, **kwargs):
        self.lengths.append(input_ids.shape[1])
        return self.hf(input_ids=input_ids, **kwargs)


def test_whole_prompt_in_one_pass_when_the_system_turn_is_not_kept(model):
    model.keep_system_turn = False
    model.generate(MESSAGES, max_new_tokens=2)
    again = model.generate(MESSAGES, max_new_tokens=2)
    assert again.prefilled_tokens == len(again.prompt_ids) and not model.system_turn.kept


def test_logprobs_of_a_continuation(model):
    out = model.logprobs("The answer is", " 7006652")
    assert [t for t, _ in out] == [model.tok.decode([i]) for i in model.encode(" 7006652")]
    assert all(lp <= 0 for _, lp in out)


def test_batch_rows_of_different_lengths(model):
    conversations = [MESSAGES, [{"role": "user", "content": "Hi"}],
                     [{"role": "user", "content": "A much longer question about nursery rhymes and sheep?"}]]
    batch = model.generate_batch(conversations, max_new_tokens=6)
    assert len(batch) == 3
    for gen, messages in zip(batch, conversations):
        assert gen.prompt == model.render(messages) and gen.new_tokens == 6
        assert "".join(t.text for t in gen.tokens) == gen.text == model.tok.decode(gen.token_ids)
        assert all(0 < t.prob <= 1 for t in gen.tokens)
    # Each row is pre-filled on its own (no padding), so the longest one's reply is the one-at-a-time reply.
    single = model.generate(conversations[2], max_new_tokens=6, reuse_cache=False)
    assert batch[2].token_ids == single.token_ids


def test_a_batch_pre_fills_the_start_its_prompts_share_once():
    counting = Counting(tiny_hf_model())
    model = LiveModel(counting, offline_tokenizer("0.5b"), INFO)
    conversations = [MESSAGES, [{"role": "user", "content": "Hi"}]]
    rows = [model.encode(model.render(m)) for m in conversations]
    shared = common_prefix(*rows)
    assert shared >= MIN_SHARED  # the chat template's system turn and more
    model.generate_batch(conversations, max_new_tokens=1)
    assert counting.lengths == [shared, len(rows[0]) - shared, len(rows[1]) - shared]


def test_the_probability_of_a_reply_token_is_the_exponent_of_its_score(model):
    gen = model.generate(MESSAGES, max_new_tokens=1, reuse_cache=False)
    token = model.tok.decode(gen.token_ids)
    assert model.encode(token) == gen.token_ids  # the chosen token reads back as itself
    [(text, logprob)] = model.logprobs(gen.prompt, token)
    assert text == token and math.exp(logprob) == pytest.approx(gen.tokens[0].prob, rel=1e-4)


def test_a_given_step_decodes_every_token_after_the_pre_fill(model):
    seen = []

    def step(hf, token_id, cache):
        seen.append(token_id)
        return hf(input_ids=torch.tensor([[token_id]]), cache=cache, use_cache=True).logits[0, -1]

    stepped = LiveModel(model.hf_model, model.tok, model.info, step=step)
    gen = stepped.generate(MESSAGES, max_new_tokens=6)
    assert seen == gen.token_ids[:-1]  # the last token is chosen, never run through
    assert gen.token_ids == model.generate(MESSAGES, max_new_tokens=6).token_ids
