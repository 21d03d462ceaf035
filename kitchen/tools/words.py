"""A word, line and character counter for a piece of text or one of the nursery rhymes.

What it does: counts words (whitespace-separated pieces that contain a letter or a digit), lines
(lines with something other than spaces on them) and characters (every character, spaces and line
breaks included) of the text it is given, or of a rhyme looked up by title.

What it deliberately does not do: no counting of syllables, sentences or unique words, and no
language-aware word splitting: "don't" and "well-known" are one word each.

Its result has a fixed shape, `WordCounts`; an MCP server can publish that shape as the tool's
`outputSchema` (`kitchen.mcp.structured`). The model's schema never shows it.
"""

from __future__ import annotations

# pydantic, which turns the shape into a JSON schema, needs typing_extensions' TypedDict on Python 3.11.
from typing_extensions import TypedDict

from kitchen.tools.errors import ToolError
from kitchen.tools.rhymes import find_rhyme

ECHO_LIMIT = 80  # longer texts are shortened in the "of" field, so a result stays small


class WordCounts(TypedDict):
    """What count_words found: words, non-blank lines and characters, and what was counted."""

    words: int
    lines: int
    characters: int
    of: str


def count_words(text: str = "", rhyme_title: str = "") -> WordCounts:
    """Count the words, lines and characters of a text, or of one of the six nursery rhymes by title.
    Use it whenever you need an exact count instead of counting yourself. Give exactly one of text or
    rhyme_title. A word is a run of non-space characters that contains a letter or a digit; lines
    counts the lines that are not blank; characters counts everything, spaces and line breaks included.

    Args:
        text: The exact text to count, copied from the conversation. Leave empty when giving
            rhyme_title.
        rhyme_title: The exact title of a nursery rhyme to count instead, as search_rhymes returns
            it. Leave empty when giving text.

    Returns:
        {"words": n, "lines": n, "characters": n, "of": what was counted}.

    Raises:
        ToolError: If both or neither of text and rhyme_title are given, or the title is unknown.

    Example:
        >>> count_words(text="Hello, world!\\n\\nBye.")
        {'words': 3, 'lines': 2, 'characters': 19, 'of': 'Hello, world!\\n\\nBye.'}
    """
    if not isinstance(text, str) or not isinstance(rhyme_title, str):
        raise ToolError("text and rhyme_title must both be strings (leave the one you do not use empty).")
    if text and rhyme_title:
        raise ToolError("Give either text or rhyme_title, not both: leave one of them empty.")
    if rhyme_title:
        rhyme = find_rhyme(rhyme_title)
        return _counts("\n".join(rhyme["lines"]), f'the rhyme "{rhyme["title"]}"')
    if text:
        return _counts(text, text if len(text) <= ECHO_LIMIT else text[:ECHO_LIMIT - 3] + "...")
    raise ToolError("Nothing to count: give the text to count, or the exact title of a rhyme as rhyme_title.")


def _counts(text: str, label: str) -> WordCounts:
    words = [token for token in text.split() if any(char.isalnum() for char in token)]
    lines = [line for line in text.splitlines() if line.strip()]
    return {"words": len(words), "lines": len(lines), "characters": len(text), "of": label}
