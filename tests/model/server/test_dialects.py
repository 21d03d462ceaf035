"""Reading both llama.cpp servers' `logprobs` into one list of tokens."""

from __future__ import annotations

import math

import pytest

from kitchen.model.server.dialects import Listed, listed_tokens


def test_llama_cpp_python_lists_text_only_and_its_nameless_specials_are_dropped():
    listed = listed_tokens({"tokens": ["4", "2"], "token_logprobs": [-0.1, None],
                            "top_logprobs": [{"4": -0.1, "": -3.0, "5": -2.5}, None]})
    assert listed == [Listed(None, "4", -0.1, [(None, "4", -0.1), (None, "5", -2.5)]), Listed(None, "2", None, [])]


def test_llama_server_lists_ids_with_its_specials():
    listed = listed_tokens({"content": [
        {"id": 19, "token": "4", "bytes": [52], "logprob": -0.1,
         "top_logprobs": [{"id": 19, "token": "4", "logprob": -0.1}, {"id": 151645, "token": "", "logprob": -2.3}]}]})
    assert listed == [Listed(19, "4", -0.1, [(19, "4", -0.1), (151645, "", -2.3)])]


def test_a_shape_that_is_neither_is_an_error():
    with pytest.raises((KeyError, ValueError, TypeError)):
        listed_tokens({"tokens": ["a", "b"], "token_logprobs": [-1.0]})
    with pytest.raises(KeyError):
        listed_tokens({"something": []})
    assert math.isnan(Listed(None, "x", math.nan).logprob)
