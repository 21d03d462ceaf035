"""Six traditional nursery rhymes and a small keyword search over them.

What it does: loads the rhymes from `data/rhymes.json` once, looks a rhyme up by its title, and
ranks the rhymes by how often the words of a query occur in them, words in a title counting extra.
Case, punctuation, a short list of common words and plural endings are ignored, so "Stars!"
finds "little star".

What it deliberately does not do: no fuzzy spelling, synonyms, real stemming or embeddings. It is
a keyword search small enough for a learner to check every score by hand.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Any

from kitchen.settings import DATA
from kitchen.tools.errors import ToolError

RHYMES_FILE = DATA / "rhymes.json"
TITLE_WEIGHT = 2  # a query word in the title counts this many times
STOP_WORDS = frozenset(
    "a about an and any are as at be by can could did do does find for from has have how i in is it "
    "its me my nursery of on or poem rhyme rhymes show song that the this to was what where which "
    "who with".split())


@functools.cache
def _rhymes() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(RHYMES_FILE.read_text(encoding="utf-8")))


def load_rhymes() -> list[dict[str, Any]]:
    """All six rhymes as `{"title", "lines"}` dicts (a fresh copy: changing it changes nothing here)."""
    return copy.deepcopy(list(_rhymes()))


def rhyme_titles() -> list[str]:
    """The six titles, in the order of the data file."""
    return [rhyme["title"] for rhyme in _rhymes()]


def _singular(word: str) -> str:
    """Drop a plural ending, lightly: lambs -> lamb, stars -> star, berries -> berry, but not glass.

    >>> [_singular(w) for w in ("lambs", "sheep", "berries", "glass", "was")]
    ['lamb', 'sheep', 'berry', 'glass', 'was']
    """
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _raw_words(text: str) -> list[str]:
    """Lower-case words without punctuation; an apostrophe joins (king's -> kings)."""
    return re.findall(r"[^\W_]+", text.lower().replace("'", "").replace("\u2019", ""))


def _words(text: str) -> list[str]:
    return [_singular(word) for word in _raw_words(text)]


def _title_key(title: str) -> str:
    return " ".join(_raw_words(title))


def find_rhyme(title: str) -> dict[str, Any]:
    """The rhyme with this title, ignoring case and punctuation; a `ToolError` lists the titles if none.

    >>> find_rhyme("humpty dumpty")["lines"][0]
    'Humpty Dumpty sat on a wall,'
    """
    if not isinstance(title, str) or not title.strip():
        raise ToolError(f"Give a rhyme title as text. The six rhymes are: {_quoted_titles()}.")
    wanted = _title_key(title)
    for rhyme in _rhymes():
        if _title_key(rhyme["title"]) == wanted:
            return copy.deepcopy(rhyme)
    raise ToolError(f"There is no rhyme titled {title!r}. The six rhymes are: {_quoted_titles()}.")


def _quoted_titles() -> str:
    return ", ".join(f'"{title}"' for title in rhyme_titles())


def search_rhymes(query: str, limit: int = 3) -> list[dict]:
    """Search six traditional nursery rhymes by keyword and return the best matches, best first. Use it
    to find which rhyme mentions something, or to learn a rhyme's exact title before quoting or
    counting it. Each result has the rhyme's title, a score (how many times the query
    words occur; a word in the title counts twice) and the lines that contain a query word. An empty
    list means that no rhyme matched.

    Args:
        query: One or two keywords taken from the user's question; case, punctuation and plurals
            do not matter.
        limit: The most results to return, a whole number from 1 to 6.

    Returns:
        A list of {"title", "score", "matching_lines"} dicts, highest score first.

    Raises:
        ToolError: If the query has no keywords or the limit is not between 1 and 6.

    Example:
        >>> [(found["title"], found["score"]) for found in search_rhymes("lambs")]
        [('Mary Had a Little Lamb', 5)]
    """
    count = len(_rhymes())
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= count:
        raise ToolError(f"limit must be a whole number from 1 to {count} (there are {count} rhymes), "
                        f"not {limit!r}.")
    words = _raw_words(query) if isinstance(query, str) else []
    if not words:
        raise ToolError('The query has no words; give one or more keywords, such as "sheep" or "star".')
    keywords = list(dict.fromkeys(_singular(word) for word in words if word not in STOP_WORDS))
    if not keywords:
        raise ToolError(f"The query {query!r} has only common words that the search ignores; "
                        'give a keyword that could appear in a rhyme, such as "sheep" or "star".')

    results = []
    for rhyme in _rhymes():
        title_hits = sum(word in keywords for word in _words(rhyme["title"]))
        line_hits = [sum(word in keywords for word in _words(line)) for line in rhyme["lines"]]
        score = TITLE_WEIGHT * title_hits + sum(line_hits)
        if score:
            matching = [line for line, hits in zip(rhyme["lines"], line_hits) if hits]
            results.append({"title": rhyme["title"], "score": score, "matching_lines": matching})
    results.sort(key=lambda result: (-result["score"], result["title"]))
    return results[:limit]
