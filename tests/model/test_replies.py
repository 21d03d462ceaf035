"""The reply's data: pieces of text per token (split characters included), positions, speed."""

from hypothesis import given, settings, strategies as st

from kitchen.model.replies import Detokenizer, FinishedStream, Generation, Token
from kitchen.model.tokenizer import offline_tokenizer

TOK = offline_tokenizer("0.5b")


def test_detokenizer_pieces_add_up_to_the_text_and_wait_for_split_characters():
    tok = offline_tokenizer("0.5b")
    text = "Done 🎉 ok"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    detok = Detokenizer(tok)
    pieces = [detok.add(i) for i in ids]
    assert "".join(pieces) == text == detok.text
    assert "" in pieces and "\ufffd" not in "".join(pieces)  # the emoji spans tokens: one waits
    assert any("🎉" in p for p in pieces)


def test_generation_positions_and_speed():
    tokens = [Token(1, "4", 0.9), Token(2, "2", 0.8), Token(3, "", 0.99)]
    gen = Generation(prompt="p", prompt_ids=[5, 6, 7], token_ids=[1, 2, 3], text="42", tokens=tokens,
                     stop_reason="end_of_turn", prefilled_tokens=1, decode_seconds=0.5)
    assert gen.token_at(1) == 1 and gen.reused_tokens == 2 and gen.tokens_per_second == 4.0
    stream = FinishedStream(gen)
    assert [t.text for t in stream] == ["4", "2", ""] and stream.result is gen and stream.run() is gen


def _whole_decode_pieces(tok, ids):
    """The reference: decode the whole reply at each token (what the windowed decode replaces)."""
    pieces, text = [], ""
    for n in range(1, len(ids) + 1):
        full = tok.decode(ids[:n])
        if full.endswith("\ufffd"):
            pieces.append("")
            continue
        pieces.append(full[len(text):])
        text = full
    return pieces


TEXTS = ["Done 🎉 ok", "数学很有趣。12 × 34 = 408",
         "<tool_call>\n{\"name\": \"calculator\"}\n</tool_call><|im_end|>", "  spaces\tand\nlines  ",
         "é́ combining, ﷽ wide, 👩‍👩‍👧 joined"]


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(st.lists(st.integers(0, 151_664), max_size=40) | st.sampled_from(TEXTS).map(lambda t: TOK.encode(t)))
def test_the_windowed_decode_gives_the_whole_decodes_pieces(ids):
    detok = Detokenizer(TOK)
    assert [detok.add(i) for i in ids] == _whole_decode_pieces(TOK, ids)
