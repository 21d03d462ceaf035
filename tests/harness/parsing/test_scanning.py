"""The parser's text-scanning machinery (`kitchen.harness.parsing.scanning`): fences, JSON values,
positions and quotes for messages."""

from __future__ import annotations

from kitchen.harness.parsing.scanning import (BRACE_TOKENS, PAREN_TOKENS, BadJSON, Finder, balanced_end, decode,
                                              find_fences, incomplete, short, where)


def test_fences_pair_in_order_and_the_last_may_stay_open() -> None:
    text = "a ```json\n{}\n``` b ```tool_call\n{"
    fences = find_fences(text)
    assert [(f.lang, f.closed) for f in fences] == [("json", True), ("tool_call", False)]
    assert text[fences[0].body_start:fences[0].body_end] == "{}\n"
    assert fences[1].end == len(text)


def test_decode_reads_a_long_value_past_its_first_window() -> None:
    text = "x" * 300 + ' {"n": ' + "1" * 600 + "}"
    value, end = decode(text, 301)
    assert value == {"n": int("1" * 600)} and end == len(text)


def test_a_decode_failure_knows_whether_the_text_only_ran_out() -> None:
    for text in ('{"a": "abc', '{"a": tru', '{"a": 12'):
        bad = decode(text, 0)
        assert isinstance(bad, BadJSON) and incomplete(bad, text, len(text))
    bad = decode('{"a": x}', 0)
    assert isinstance(bad, BadJSON) and not incomplete(bad, '{"a": x}', 8)
    deep = decode("[" * 5000 + "]" * 5000, 0)
    assert deep == BadJSON("it is nested too deeply", 0, False)


def test_finder_answers_growing_positions() -> None:
    finder = Finder("a</x>b</x>", "</x>")
    assert [finder.next(0), finder.next(1), finder.next(2), finder.next(7)] == [1, 1, 6, -1]


def test_positions_and_quotes_for_messages() -> None:
    assert where("ab\ncd", 0, 4) == "line 2, column 2"
    assert short("a  b\n c" + "x" * 100, 10) == "a b cxx..."


def test_a_bracket_inside_quotes_does_not_close_and_an_unclosed_one_gives_none() -> None:
    text = 'f("(", {"k": "}"}) and more'
    assert balanced_end(PAREN_TOKENS, text, 1, len(text)) == text.index(")", 5) + 1
    assert balanced_end(BRACE_TOKENS, text, 6, len(text)) == text.index("})") + 1
    assert balanced_end(PAREN_TOKENS, 'f("a", (1)', 1, 10) is None
