"""HTML views: the same data gives the same text, special tokens are marked, HTML is escaped."""

from kitchen.views.display import HTML, marked_text, table, token_chips, visible
from kitchen.model.tokenizer import offline_tokenizer


def test_visible_shows_spaces_line_breaks_and_tabs():
    assert visible(" 12\n\t") == "␣12↵⇥"


def test_table_aligns_text_and_escapes_html():
    view = table([["<b>", 1], ["x", 12345]], ["name", "n"])
    assert repr(view).splitlines() == ["name  n    ", "<b>   1    ", "x     12345"]
    cells = view._repr_html_().split("<td")[1:]
    assert "&lt;b&gt;" in cells[0] and "<b>" not in "".join(cells)


def test_token_chips_colour_control_and_tool_call_tokens():
    tok = offline_tokenizer("0.5b")
    ids = tok("<|im_start|>user\n<tool_call>12", add_special_tokens=False)["input_ids"]
    view = token_chips(tok, ids)
    assert repr(view).startswith(f"{len(ids)} tokens: <|im_start|>|151644")
    assert "<tool_call>|151657" in repr(view)
    assert view.html.count("#ffd7a8") >= 2 and view.html.count("#b9e6b0") >= 2  # chip and legend


def test_marked_text_keeps_every_part_in_order():
    view = marked_text([("system", "Be brief."), ("user", "2 < 3?")])
    assert repr(view) == "[system]\nBe brief.\n[user]\n2 < 3?"
    assert "2 &lt; 3?" in view.html and isinstance(view, HTML)


def test_mask_steps_lists_only_the_steps_the_grammar_overruled():
    from kitchen.views.display import mask_steps
    from kitchen.model.replies import Candidate, Generation, Token

    free = Token(9, "a", 0.9, [Candidate(9, "a", 0.9, True), Candidate(3, "b", 0.1, False)])
    overruled = Token(5, " {", 0.01, [Candidate(4, "9", 0.8, False), Candidate(5, " {", 0.01, True)])
    gen = Generation("", [], [9, 5], "a {", [free, overruled], "end_of_turn")
    view = mask_steps(gen)
    assert repr(view).splitlines()[1].split() == ["2", "'9'", "80.0%", "'␣{'", "1.0%", "'9'", "80%"]
    assert len(repr(mask_steps(gen, only_changed=False)).splitlines()) == 3
    assert "never overruled" in repr(mask_steps(Generation("", [], [9], "a", [free], "end_of_turn")))
