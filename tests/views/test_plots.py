"""Figures: each is drawn from the data given, in the series' style, without changing matplotlib's settings."""

import matplotlib

from kitchen.views.plots import STYLE, accuracy_figure, bar_figure, top_k_figure
from kitchen.model.replies import Candidate, Token
from kitchen.chapters.sweep import Point


def test_importing_and_drawing_change_no_global_setting():
    before = dict(matplotlib.rcParams)
    bar_figure(["a"], [1.0], xlabel="x")
    assert dict(matplotlib.rcParams) == before


def test_top_k_figure_marks_the_chosen_token():
    token = Token(7, "7", 0.6, [Candidate(6, " 6", 0.3), Candidate(7, "7", 0.6), Candidate(8, "8", 0.1)])
    fig = top_k_figure(token)
    ax = fig.axes[0]
    colours = [bar.get_facecolor() for bar in ax.patches]
    assert len(colours) == 3 and len(set(colours)) == 2  # one dark bar, two light ones
    assert [t.get_text() for t in ax.get_yticklabels()] == ["8", "7", "␣6"]
    assert "chosen: '7' (60.0%)" == ax.get_title()
    assert fig.dpi == STYLE["figure.dpi"]


def test_bar_figure_stacks_series_when_asked():
    fig = bar_figure(["x", "y"], [], xlabel="tokens", stacked={"a": [1, 2], "b": [3, 4]})
    ax = fig.axes[0]
    assert len(ax.patches) == 4
    assert [round(p.get_x(), 6) for p in ax.patches] == [0, 0, 1, 2]  # b starts where a ended


def test_accuracy_figure_draws_one_line_per_series():
    off = [Point("off", d, right, 4) for d, right in ((1, 4), (2, 1))]
    on = [Point("on", d, 4, 4) for d in (1, 2)]
    fig = accuracy_figure({"0.5B · tools off": off, "0.5B · tools on": on})
    lines = fig.axes[0].get_lines()
    assert [list(line.get_ydata()) for line in lines] == [[100.0, 25.0], [100.0, 100.0]]
    assert [line.get_linestyle() for line in lines] == ["--", "-"]


def test_top_k_figure_marks_what_a_grammar_removed():
    token = Token(5, "<tool_call>", 1e-9, [Candidate(1, "```", 0.7, False), Candidate(2, "{", 0.2, False),
                                          Candidate(5, "<tool_call>", 1e-9, True)])
    ax = top_k_figure(token).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["<tool_call>", "✗ {", "✗ ```"]
    assert [bar.get_hatch() for bar in ax.patches] == [None, "//", "//"]
    assert any("removed by the grammar" in t.get_text() for t in ax.texts)
