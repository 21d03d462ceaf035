"""Chapter 02's claims: examples in a description become arguments; what a forced start does; Toolformer's test.

`test_claim` makes each of the chapter's claims on a live model (marked `claim`; see `claim_runs`).
The unit tests give a verdict scores written by hand (no live model).
"""

from __future__ import annotations

import pytest

import kitchen.claims.ch02 as ch02
from kitchen.claims import verdict
from kitchen.model.load import load_model

from claim_runs import check_claim, claim_ids


@pytest.mark.claim
@pytest.mark.parametrize("claim_id", claim_ids(ch02))
def test_claim(claim_id, require_tier, report):
    check_claim(claim_id, require_tier, report)


def test_the_toolformer_claim_reads_the_scores_it_is_given():
    right = {"question alone": [("7", -13.0)], "question + tool listed": [("7", -12.0)],
             "call without its result": [("7", -12.0)], "call + result": [("7", -0.1)]}
    swapped = dict(right, **{"call + result": [("7", -12.5)]})
    model = load_model("0.5b", "replay", announce=False)
    assert verdict("02.toolformer", right, model).holds
    assert not verdict("02.toolformer", swapped, model).holds


def test_an_argument_restating_its_parameter_is_found_and_a_real_value_is_not():
    model = load_model("0.5b", "replay", announce=False)
    made_up = {"with": [], "without": [("count_words", {"text": "This is a test text.", "rhyme_title": "The rhyme title."})]}
    real = {"with": [], "without": [("count_words", {"text": "the cow jumped over the moon"})]}
    assert verdict("02.restates_the_parameter", made_up, model).holds
    assert not verdict("02.restates_the_parameter", real, model).holds
    assert ch02.restated([("search_rhymes", {"query": "rhyme title"})]) == []
