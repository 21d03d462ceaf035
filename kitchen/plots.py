"""Matplotlib figures for the notebooks. Each function returns a `Figure` and shows nothing itself."""

from __future__ import annotations

from typing import Sequence

import matplotlib

matplotlib.rcParams.update({"figure.dpi": 100, "font.size": 11})

import matplotlib.pyplot as plt  # noqa: E402

from .display import visible  # noqa: E402
from .generation import Token  # noqa: E402

CHOSEN, OTHER = "#2b7bba", "#b8c4d6"


def top_k_figure(token: Token, title: str = "") -> plt.Figure:
    """Bar chart of the candidates at one step; the token the model picked is dark."""
    fig, ax = plt.subplots(figsize=(6, 0.35 * len(token.top) + 1))
    labels = [repr(visible(c.text))[1:-1] or "∅" for c in token.top][::-1]
    probs = [c.prob for c in token.top][::-1]
    colours = [CHOSEN if c.token_id == token.token_id else OTHER for c in token.top][::-1]
    ax.barh(range(len(probs)), probs, color=colours)
    ax.set_yticks(range(len(probs)), labels, fontfamily="monospace")
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability")
    for y, p in enumerate(probs):
        ax.text(min(p + 0.01, 0.9), y, f"{p:.1%}", va="center", fontsize=9)
    ax.set_title(title or f"chosen: {visible(token.text)!r} ({token.prob:.1%})", fontsize=11)
    fig.tight_layout()
    plt.close(fig)
    return fig


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
