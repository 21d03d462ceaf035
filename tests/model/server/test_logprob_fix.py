"""`kitchen.model.server.logprob_fix`'s ranking gives the first entries of the full sort, in the same order.
(That the patched server's replies equal the unpatched server's is in tests/model/server/test_llama_python.py.)"""

from __future__ import annotations

from hypothesis import given, strategies as st

from kitchen.model.server.logprob_fix import TOP, top_sorted

scores = st.lists(st.floats(allow_nan=False, width=32), max_size=200)


@given(scores)
def test_the_top_entries_are_the_full_sorts_first_entries(values):
    ranked = top_sorted(zip(values, range(len(values))), reverse=True)
    assert ranked == sorted(zip(values, range(len(values))), reverse=True)[:TOP]


@given(scores)
def test_any_other_call_is_the_built_in_sort(values):
    assert top_sorted(values) == sorted(values)
    assert top_sorted(values, key=abs, reverse=True) == sorted(values, key=abs, reverse=True)
