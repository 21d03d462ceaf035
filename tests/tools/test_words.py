"""The word counter, on given text and on rhymes by title."""

from __future__ import annotations

import doctest
import importlib
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kitchen.tools.errors import ToolError
from kitchen.tools.rhymes import load_rhymes
from kitchen.tools.words import ECHO_LIMIT, WordCounts, count_words

MAX_EXAMPLES_SIMPLE_TEXT = 500  # property test against str.split on letters, spaces and line breaks


@pytest.mark.parametrize("text", [
    "one",
    "the cat sat on the mat",
    "  leading and trailing  ",
    "tabs\tand\nnew lines\n\nand blank ones\n",
    "Hello, world! 42 times.",
])
def test_word_count_matches_split_on_simple_text(text: str) -> None:
    result = count_words(text=text)
    assert result["words"] == len(text.split())
    assert result["characters"] == len(text)
    assert result["lines"] == sum(1 for line in text.splitlines() if line.strip())


def test_punctuation_alone_is_not_a_word() -> None:
    assert count_words(text="Wait — what ?! ... ok")["words"] == 3


def test_contractions_and_hyphens_are_one_word() -> None:
    assert count_words(text="don't stop well-known")["words"] == 3


def test_result_shape_for_text() -> None:
    assert count_words(text="a b\n\nc") == {"words": 3, "lines": 2, "characters": 6, "of": "a b\n\nc"}


def test_the_result_has_the_declared_shape() -> None:
    declared = typing.get_type_hints(WordCounts)
    assert typing.get_type_hints(count_words)["return"] is WordCounts
    assert declared == {"words": int, "lines": int, "characters": int, "of": str}
    for result in (count_words(text="a b\n\nc"), count_words(rhyme_title="Humpty Dumpty")):
        assert {key: type(value) for key, value in result.items()} == declared


def test_long_text_is_shortened_in_the_of_field() -> None:
    text = "word " * 100
    result = count_words(text=text)
    assert result["words"] == 100 and result["characters"] == 500
    assert len(result["of"]) == ECHO_LIMIT and result["of"].endswith("...")


@pytest.mark.parametrize("title", [rhyme["title"] for rhyme in load_rhymes()])
def test_rhymes_by_title(title: str) -> None:
    lines = next(rhyme["lines"] for rhyme in load_rhymes() if rhyme["title"] == title)
    result = count_words(rhyme_title=title.upper())
    assert result["words"] == sum(len(line.split()) for line in lines)
    assert result["lines"] == len(lines)
    assert result["characters"] == len("\n".join(lines))
    assert result["of"] == f'the rhyme "{title}"'


def test_humpty_dumpty_by_hand() -> None:
    assert count_words(rhyme_title="Humpty Dumpty")["words"] == 26


@pytest.mark.parametrize("arguments, says", [
    ({}, "Nothing to count"),
    ({"text": "", "rhyme_title": ""}, "Nothing to count"),
    ({"text": "some words", "rhyme_title": "Humpty Dumpty"}, "not both"),
    ({"rhyme_title": "Little Bo Peep"}, "Humpty Dumpty"),
    ({"text": 42}, "strings"),
])
def test_bad_arguments_are_refused(arguments: dict, says: str) -> None:
    with pytest.raises(ToolError) as caught:
        count_words(**arguments)
    assert says in str(caught.value)


@settings(max_examples=MAX_EXAMPLES_SIMPLE_TEXT, deadline=None, database=None)
@given(st.text(alphabet="abcXYZ019 \n\t", min_size=1))
def test_counts_match_python_on_simple_text(text: str) -> None:
    result = count_words(text=text)
    assert result["words"] == len(text.split())
    assert result["lines"] == len([line for line in text.splitlines() if line.strip()])
    assert result["characters"] == len(text)


def test_docstring_examples() -> None:
    result = doctest.testmod(importlib.import_module("kitchen.tools.words"))
    assert result.attempted >= 1 and result.failed == 0
