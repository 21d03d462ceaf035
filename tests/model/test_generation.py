"""The decode loop on a tiny random model: streaming, top-k, stop strings, KV-cache reuse."""

import pytest

from kitchen.model.generation import common_prefix
from kitchen.harness.loop import run_harness
from kitchen.tools import calculator

MESSAGES = [{"role": "user", "content": "What is 1234 × 5678?"}]


def test_stream_pieces_add_up_to_the_text(model):
    stream = model.stream(MESSAGES, max_new_tokens=12, reuse_cache=False)
    pieces = [t.text for t in stream]
    gen = stream.result
    assert len(pieces) == gen.new_tokens == 12 and gen.stop_reason == "max_new_tokens"
    assert "".join(pieces) == gen.text
    assert gen.prompt_ids == model.encode(gen.prompt) and gen.prefilled_tokens == len(gen.prompt_ids)


def test_top_k_candidates_are_sorted_and_hold_the_greedy_choice(model):
    gen = model.generate(MESSAGES, max_new_tokens=5, top_k=4, reuse_cache=False)
    for token in gen.tokens:
        probs = [c.prob for c in token.top]
        assert len(probs) == 4 and probs == sorted(probs, reverse=True) and sum(probs) <= 1.0001
        assert token.top[0].token_id == token.token_id and token.top[0].prob == pytest.approx(token.prob)


def test_no_top_k_unless_asked(model):
    gen = model.generate(MESSAGES, max_new_tokens=3, reuse_cache=False)
    assert all(t.top == [] for t in gen.tokens)


def test_greedy_is_repeatable(model):
    a = model.generate(MESSAGES, max_new_tokens=8, reuse_cache=False)
    b = model.generate(MESSAGES, max_new_tokens=8, reuse_cache=False)
    assert a.token_ids == b.token_ids


def test_stop_string_ends_the_reply_and_stays_in_it(model):
    full = model.generate(MESSAGES, max_new_tokens=20, reuse_cache=False)
    stop = full.tokens[5].text
    assert stop.strip(), "the tiny model's sixth token should be visible text"
    gen = model.generate(MESSAGES, max_new_tokens=20, stop=[stop], reuse_cache=False)
    assert gen.stop_reason == "stop_string" and gen.stop_string == stop
    assert gen.text.endswith(stop) and gen.new_tokens <= 6


def test_cache_reuse_prefills_only_new_tokens_and_keeps_the_tokens(model):
    first = model.generate(MESSAGES, max_new_tokens=6)
    follow = MESSAGES + [{"role": "assistant", "content": first.text},
                         {"role": "user", "content": "Are you sure?"}]
    reused = model.generate(follow, max_new_tokens=6, reuse_cache=True)
    fresh = model.generate(follow, max_new_tokens=6)
    assert fresh.reused_tokens == system_turn_length(model, fresh)  # only the kept system turn
    assert reused.reused_tokens > len(first.prompt_ids) - 5
    assert reused.prefilled_tokens < fresh.prefilled_tokens
    assert reused.token_ids == fresh.token_ids


def system_turn_length(model, gen) -> int:
    return gen.prompt_ids.index(model.tok.convert_tokens_to_ids("<|im_end|>")) + 1


def test_system_turn_is_computed_once_and_kept(model):
    cold = model.generate(MESSAGES, max_new_tokens=6, top_k=3)
    warm = model.generate(MESSAGES, max_new_tokens=6, top_k=3)
    assert cold.prefilled_tokens == len(cold.prompt_ids)  # the system turn computed now, then the rest
    assert warm.prefilled_tokens == len(warm.prompt_ids) - system_turn_length(model, warm)
    # The prompt is split at the same place both times, so the numbers are the same, not just close.
    assert warm.token_ids == cold.token_ids
    assert [t.prob for t in warm.tokens] == [t.prob for t in cold.tokens]
    assert [[c.prob for c in t.top] for t in warm.tokens] == [[c.prob for c in t.top] for t in cold.tokens]


def test_another_system_turn_is_computed_and_few_are_kept(model):
    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}
    model.generate(MESSAGES, max_new_tokens=2)
    with_tool = model.generate(MESSAGES, [tool], max_new_tokens=2)
    assert with_tool.prefilled_tokens == len(with_tool.prompt_ids)  # a new system turn (its tools block)
    for n in range(model.system_turn.keep + 2):
        model.generate([{"role": "system", "content": f"system {n}"}] + MESSAGES, max_new_tokens=1)
    assert len(model.system_turn.kept) == model.system_turn.keep


def test_abandoned_stream_leaves_a_usable_cache(model):
    stream = model.stream(MESSAGES, max_new_tokens=10)
    for i, _ in enumerate(stream):
        if i == 3:
            break
    stream_iter = None  # the generator is closed when dropped
    again = model.generate(MESSAGES, max_new_tokens=6, reuse_cache=True)
    fresh = model.generate(MESSAGES, max_new_tokens=6)
    assert again.token_ids == fresh.token_ids


def test_common_prefix():
    assert common_prefix([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix([], [1]) == 0


def test_a_continued_run_prefills_only_its_new_turn(model):
    first = run_harness(model, "What is 6 * 7?", [calculator], max_steps=1, max_new_tokens=4)
    more = first.messages + [{"role": "user", "content": "Are you sure?"}]
    continued = run_harness(model, more, [calculator], max_steps=1, max_new_tokens=4, continue_cache=True)
    run_harness(model, "Something else.", [calculator], max_steps=1, max_new_tokens=4)  # the cache moves on
    fresh = run_harness(model, more, [calculator], max_steps=1, max_new_tokens=4)
    step, again = continued.steps[0].generation, fresh.steps[0].generation
    assert step.prompt_ids == again.prompt_ids
    assert step.prefilled_tokens < len(step.prompt_ids) - len(first.steps[0].generation.prompt_ids) + 8
    assert again.prefilled_tokens > step.prefilled_tokens
