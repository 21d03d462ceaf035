"""A grammar's mask over the next token (`kitchen.grammar.mask`): `Constraint` step by step, and
`grammar_complaint` on a whole reply. The real tokenizer, no weights (the tiny random model only
where a model's own vocabulary size matters)."""

from types import SimpleNamespace

import pytest
import torch

from kitchen.grammar.calls import GrammarError, call_grammar
from kitchen.grammar.mask import Constraint, grammar_complaint
from kitchen.model.tokenizer import offline_tokenizer
from kitchen.tools import TOY_TOOLS
from tiny import tiny_model

TOK = offline_tokenizer("0.5b")
HI = 'start: "Hi there"'
HI_IDS = TOK.encode("Hi there")  # two tokens: "Hi", " there"
END = TOK.convert_tokens_to_ids("<|im_end|>")


@pytest.fixture(scope="module")
def model():
    return tiny_model()


def test_compile_is_cheap_after_the_tokenizer(model):
    model.constraint(call_grammar(TOY_TOOLS))  # builds llguidance's tokenizer once
    c = model.constraint(call_grammar(TOY_TOOLS, "auto"))
    assert isinstance(c, Constraint) and c.compile_seconds < 1.0


def test_the_mask_allows_only_the_next_token_and_then_the_end():
    constraint = Constraint.for_tokenizer(TOK, HI)
    allowed = constraint.allowed()
    assert allowed.dtype == torch.bool and len(allowed) == len(TOK)
    assert allowed.nonzero().flatten().tolist() == [HI_IDS[0]]
    assert not constraint.finished
    for token_id in HI_IDS:
        constraint.consume(token_id)
    assert constraint.finished and constraint.allowed().nonzero().flatten().tolist() == [END]


def test_a_token_the_grammar_refuses_or_a_grammar_that_does_not_compile_raise_a_grammar_error():
    with pytest.raises(GrammarError, match="not allowed here"):
        Constraint.for_tokenizer(TOK, HI).consume(TOK.encode("Ho")[0])
    with pytest.raises(GrammarError, match="does not compile.*nothing_defined"):
        Constraint.for_tokenizer(TOK, "start: nothing_defined")


def test_padding_ids_past_the_tokenizer_are_never_allowed():
    constraint = Constraint(TOK, r"start: /(.|\n)*/", n_vocab=len(TOK) + 64, eos=END)
    allowed = constraint.allowed()
    assert len(allowed) == len(TOK) + 64
    assert not allowed[len(TOK):].any() and not allowed[151700]  # [PAD151700], padding inside the vocabulary
    assert allowed[HI_IDS[0]] and allowed[END]


def test_a_complaint_names_the_first_token_that_breaks_the_grammar():
    assert grammar_complaint(TOK, HI, HI_IDS) == ""
    assert grammar_complaint(TOK, HI, TOK.encode("Hi where")) == "token 1 (' where') is not allowed there"


def test_a_reply_cut_short_keeps_to_the_grammar_only_when_marked_incomplete():
    assert grammar_complaint(TOK, HI, HI_IDS[:1]) == "the reply ends before the grammar allows it to"
    assert grammar_complaint(TOK, HI, HI_IDS[:1], complete=False) == ""


def test_candidates_are_marked_by_the_mask_at_their_step():
    first = [SimpleNamespace(token_id=i, allowed=None) for i in (HI_IDS[0], TOK.encode("Ho")[0], 10**7)]
    second = [SimpleNamespace(token_id=i, allowed=None) for i in (HI_IDS[1], HI_IDS[0])]
    assert grammar_complaint(TOK, HI, HI_IDS, candidates=[first, second]) == ""
    assert [c.allowed for c in first] == [True, False, None]  # None: not a token of this vocabulary
    assert [c.allowed for c in second] == [True, False]

