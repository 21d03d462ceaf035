"""The nursery-rhyme data, the keyword search and the title lookup."""

from __future__ import annotations

import doctest
import importlib
import json

import pytest

from kitchen.settings import DATA
from kitchen.tools.errors import ToolError
from kitchen.tools.rhymes import find_rhyme, load_rhymes, search_rhymes

TITLES = ["Baa, Baa, Black Sheep", "Mary Had a Little Lamb", "Humpty Dumpty",
          "Twinkle, Twinkle, Little Star", "Hey Diddle Diddle", "Jack and Jill"]


def test_data_file_holds_the_six_rhymes() -> None:
    rhymes = json.loads((DATA / "rhymes.json").read_text(encoding="utf-8"))
    assert [rhyme["title"] for rhyme in rhymes] == TITLES
    for rhyme in rhymes:
        assert set(rhyme) == {"title", "lines"}
        assert len(rhyme["lines"]) >= 4 and all(isinstance(line, str) and line for line in rhyme["lines"])


def test_load_rhymes_gives_a_copy() -> None:
    rhymes = load_rhymes()
    rhymes[0]["lines"].clear()
    assert load_rhymes()[0]["lines"][0] == "Baa, baa, black sheep,"


def titles(results: list[dict]) -> list[str]:
    return [result["title"] for result in results]


@pytest.mark.parametrize("query, best", [
    ("sheep", "Baa, Baa, Black Sheep"),
    ("lambs", "Mary Had a Little Lamb"),
    ("Lamb", "Mary Had a Little Lamb"),
    ("stars", "Twinkle, Twinkle, Little Star"),
    ("star!!!", "Twinkle, Twinkle, Little Star"),
    ("the king's horses", "Humpty Dumpty"),
    ("a pail of water", "Jack and Jill"),
    ("which rhyme has a cow and the moon?", "Hey Diddle Diddle"),
])
def test_finds_the_right_rhyme(query: str, best: str) -> None:
    results = search_rhymes(query)
    assert results and results[0]["title"] == best
    assert set(results[0]) == {"title", "score", "matching_lines"}


def test_scores_count_occurrences_and_title_words_twice() -> None:
    # "jill": twice in the lines, once in the title (counted twice): 2 + 2.
    [result] = search_rhymes("jill")
    assert result == {"title": "Jack and Jill", "score": 4,
                      "matching_lines": ["Jack and Jill went up the hill", "And Jill came tumbling after."]}


def test_ranking_breaks_ties_by_title() -> None:
    # little: Twinkle 2 lines + title = 4, Mary 1 line + title = 3, Baa and Hey 1 line each (a tie).
    results = search_rhymes("little", limit=6)
    assert [(r["title"], r["score"]) for r in results] == [
        ("Twinkle, Twinkle, Little Star", 4), ("Mary Had a Little Lamb", 3),
        ("Baa, Baa, Black Sheep", 1), ("Hey Diddle Diddle", 1)]


def test_results_are_sorted_and_lines_really_match() -> None:
    results = search_rhymes("little lamb star wall hill", limit=6)
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    rhymes = {rhyme["title"]: rhyme for rhyme in load_rhymes()}
    for result in results:
        assert all(line in rhymes[result["title"]]["lines"] for line in result["matching_lines"])


def test_limit_caps_the_results() -> None:
    assert len(search_rhymes("little", limit=2)) == 2
    assert len(search_rhymes("little")) == 3  # the default
    assert len(search_rhymes("little", limit=1)) == 1


def test_no_match_is_an_empty_list() -> None:
    assert search_rhymes("dragon") == []


@pytest.mark.parametrize("limit", [0, 7, -1, True, 2.5, "3"])
def test_bad_limits_are_refused(limit: object) -> None:
    with pytest.raises(ToolError, match="from 1 to 6"):
        search_rhymes("sheep", limit=limit)  # type: ignore[arg-type]


@pytest.mark.parametrize("query", ["", "   ", "?!", None])
def test_queries_without_words_are_refused(query: object) -> None:
    with pytest.raises(ToolError, match="no words"):
        search_rhymes(query)  # type: ignore[arg-type]


def test_a_query_of_only_common_words_is_refused() -> None:
    with pytest.raises(ToolError, match="common words"):
        search_rhymes("the rhyme with a")


@pytest.mark.parametrize("title", ["Humpty Dumpty", "humpty dumpty", "HUMPTY DUMPTY!", " Humpty,  Dumpty "])
def test_find_rhyme_ignores_case_and_punctuation(title: str) -> None:
    assert find_rhyme(title)["title"] == "Humpty Dumpty"


def test_find_rhyme_knows_every_title() -> None:
    for title in TITLES:
        assert find_rhyme(title.lower().replace(",", ""))["title"] == title


@pytest.mark.parametrize("title", ["Little Bo Peep", "", "Humpty"])
def test_unknown_titles_list_the_six(title: str) -> None:
    with pytest.raises(ToolError) as caught:
        find_rhyme(title)
    assert all(known in str(caught.value) for known in TITLES)


def test_docstring_examples() -> None:
    result = doctest.testmod(importlib.import_module("kitchen.tools.rhymes"))
    assert result.attempted >= 2 and result.failed == 0
