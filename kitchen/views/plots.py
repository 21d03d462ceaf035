"""Matplotlib figures for the notebooks. Each function returns a `Figure` and shows nothing itself.

Every figure is drawn in the series' style (`STYLE`, applied only while it is drawn: importing
this module changes no matplotlib setting).
"""

from __future__ import annotations

import functools
from typing import Callable, ParamSpec, Sequence

import matplotlib.pyplot as plt

from kitchen.views.display import visible
from kitchen.model.replies import Token

CHOSEN, OTHER, REMOVED = "#2b7bba", "#b8c4d6", "#e8a0a0"
STYLE = {"figure.dpi": 100, "font.size": 11}
P = ParamSpec("P")


def _styled(draw: Callable[P, plt.Figure]) -> Callable[P, plt.Figure]:
    """Draw the figure with `STYLE` in force."""
    @functools.wraps(draw)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> plt.Figure:
        with plt.rc_context(STYLE):
            return draw(*args, **kwargs)
    return wrapper


@_styled
def top_k_figure(token: Token, title: str = "") -> plt.Figure:
    """Bar chart of the candidates at one step; the token the model picked is dark.

    Under a grammar, candidates the mask removed are drawn red, hatched and marked ✗: the model
    wanted them, the grammar did not allow them.
    """
    fig, ax = plt.subplots(figsize=(6, 0.35 * len(token.top) + 1))
    top = token.top[::-1]
    labels = [("✗ " if c.allowed is False else "") + (repr(visible(c.text))[1:-1] or "∅") for c in top]
    probs = [c.prob for c in top]
    colours = [CHOSEN if c.token_id == token.token_id else REMOVED if c.allowed is False else OTHER
               for c in top]
    bars = ax.barh(range(len(probs)), probs, color=colours)
    for bar, c in zip(bars, top):
        if c.allowed is False:
            bar.set_hatch("//")
    ax.set_yticks(range(len(probs)), labels, fontfamily="monospace")
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability")
    for y, p in enumerate(probs):
        ax.text(min(p + 0.01, 0.9), y, f"{p:.1%}", va="center", fontsize=9)
    if any(c.allowed is False for c in top):
        ax.text(0.99, 0.02, "✗ removed by the grammar", transform=ax.transAxes, ha="right",
                va="bottom", fontsize=9, color="#a33")
    ax.set_title(title or f"chosen: {visible(token.text)!r} ({token.prob:.1%})", fontsize=11)
    fig.tight_layout()
    plt.close(fig)
    return fig


@_styled
def bar_figure(labels: Sequence[str], values: Sequence[float], *, xlabel: str, title: str = "",
               stacked: dict[str, Sequence[float]] | None = None) -> plt.Figure:
    """Horizontal bars, one per label; with `stacked`, one coloured segment per named series."""
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(labels) + 1.2))
    ys = range(len(labels))
    if stacked:
        left = [0.0] * len(labels)
        for name, series in stacked.items():
            ax.barh(ys, series, left=left, label=name)
            left = [a + b for a, b in zip(left, series)]
        ax.legend(loc="lower right", fontsize=9)
    else:
        ax.barh(ys, values, color=CHOSEN)
    ax.set_yticks(list(ys), labels)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    plt.close(fig)
    return fig


@_styled
def growth_figure(trace, title: str = "") -> plt.Figure:
    """How a harness run's prompt grew, step by step, and where each step's time went."""
    steps = trace.steps
    xs = [s.index for s in steps]
    reused = [s.generation.reused_tokens for s in steps]
    prefilled = [s.generation.prefilled_tokens for s in steps]
    written = [s.generation.new_tokens for s in steps]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    left.bar(xs, reused, color=OTHER, label="reused from the KV cache")
    left.bar(xs, prefilled, bottom=reused, color=CHOSEN, label="pre-filled")
    left.bar(xs, written, bottom=[a + b for a, b in zip(reused, prefilled)], color="#f2a541",
             label="written by the model")
    left.set_xlabel("step (model call)")
    left.set_ylabel("tokens")
    left.set_xticks(xs)
    left.legend(fontsize=8)
    left.set_title("the prompt at each step")
    pre = [s.generation.prefill_seconds for s in steps]
    dec = [s.generation.decode_seconds for s in steps]
    tools = [s.tool_seconds for s in steps]
    right.bar(xs, pre, color=CHOSEN, label="pre-fill")
    right.bar(xs, dec, bottom=pre, color="#f2a541", label="writing")
    right.bar(xs, tools, bottom=[a + b for a, b in zip(pre, dec)], color="#59a14f", label="tools")
    right.set_xlabel("step (model call)")
    right.set_ylabel("seconds")
    right.set_xticks(xs)
    right.legend(fontsize=8)
    right.set_title("the time of each step")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    plt.close(fig)
    return fig


@_styled
def accuracy_figure(series: dict[str, list], title: str = "") -> plt.Figure:
    """Accuracy against digit count, one line per series, with 95% intervals as bands.

    `series` maps a label ("0.5B · tools off") to `kitchen.chapters.sweep.Point`s.
    """
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, points in series.items():
        xs = [p.digits for p in points]
        ys = [100 * p.accuracy for p in points]
        lows = [100 * p.interval[0] for p in points]
        highs = [100 * p.interval[1] for p in points]
        style = "-o" if "on" in label.split("·")[-1] else "--s"
        line, = ax.plot(xs, ys, style, label=label)
        ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.15)
    ax.set_xlabel("digits in each number (d × d multiplication)")
    ax.set_ylabel("answers exactly right (%)")
    ax.set_ylim(-3, 103)
    ax.set_xticks(sorted({p.digits for points in series.values() for p in points}))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    ax.set_title(title or "Accuracy against digit count (bands: 95% intervals)")
    fig.tight_layout()
    plt.close(fig)
    return fig


@_styled
def grouped_bar_figure(groups: Sequence[str], series: dict[str, Sequence[float | None]], *, ylabel: str,
                       title: str = "") -> plt.Figure:
    """Vertical bars: one group per label in `groups`, one bar per series in each (None: no bar)."""
    fig, ax = plt.subplots(figsize=(9, 4.2))
    width = 0.8 / max(1, len(series))
    for n, (name, values) in enumerate(series.items()):
        xs = [i + (n - (len(series) - 1) / 2) * width for i, v in enumerate(values) if v is not None]
        ax.bar(xs, [v for v in values if v is not None], width=width * 0.95, label=name)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    plt.close(fig)
    return fig
