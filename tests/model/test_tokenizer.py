"""The tokenizer in `data/`, with each tier's pack chat template: what replayed and scripted models read."""

from kitchen.model.tokenizer import CHAT_TEMPLATES, offline_tokenizer


def test_each_tier_has_its_own_packs_chat_template():
    small, large = offline_tokenizer("0.5b"), offline_tokenizer("1.5b")
    assert small.chat_template == (CHAT_TEMPLATES / "0.5b.jinja").read_text()
    assert large.chat_template == (CHAT_TEMPLATES / "1.5b.jinja").read_text()
    assert small is not large and small.chat_template != large.chat_template  # one template does not overwrite the other


def test_the_tokenizer_is_read_once_per_tier():
    assert offline_tokenizer("0.5b") is offline_tokenizer("0.5b")


def test_the_chat_tokens_are_single_ids_within_the_models_vocabulary():
    tok = offline_tokenizer("0.5b")
    ids = [tok.convert_tokens_to_ids(t) for t in ("<|im_start|>", "<|im_end|>", "<|endoftext|>")]
    assert ids == [151644, 151645, 151643]
    assert tok("<|im_start|>user\nHi<|im_end|>", add_special_tokens=False)["input_ids"][0] == 151644
    assert len(tok) <= 151936  # Qwen2.5's embedding rows (vocab_size): every id the tokenizer gives has one


def test_a_conversation_is_rendered_as_qwens_chat_turns():
    text = offline_tokenizer("0.5b").apply_chat_template([{"role": "user", "content": "What is 2 + 2?"}],
                                                         tokenize=False, add_generation_prompt=True)
    assert text.startswith("<|im_start|>system\n")
    assert text.endswith("<|im_start|>user\nWhat is 2 + 2?<|im_end|>\n<|im_start|>assistant\n")
