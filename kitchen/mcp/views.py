"""Chapter 05's HTML views: the wire as a two-sided conversation, and the server's tool table.

Every style the views use is named once, in `STYLES`, and the colours in `CLIENT_COLOUR`,
`SERVER_COLOUR` and `ERROR_COLOUR`. Each view is a `kitchen.views.display.HTML` (HTML for the notebook,
plain text for everything else), built from data only, so the same input gives the same output.

What this module does not do: record frames or summarize them (`kitchen.mcp.frames`, whose
`Frame` the views read through the `ShownFrame` shape), or talk to a server.
"""

from __future__ import annotations

import html
from typing import Any, Protocol, Sequence

from kitchen.views.display import HTML, table

CLIENT_COLOUR, SERVER_COLOUR, ERROR_COLOUR = "#d8ecff", "#e5f7dc", "#fde2e4"
STYLES = {
    "page": "font-size:90%",
    "head": "display:flex;justify-content:space-between;font-weight:bold;font-size:90%",
    "row": "display:flex;justify-content:{align};margin:3px 0",
    "bubble": "max-width:72%;background:{colour};color:#111;border-radius:6px;padding:3px 8px",
    "headline": "font-family:monospace;font-size:85%",
    "muted": "color:#555",
    "summary": "font-family:monospace;white-space:pre-wrap",
    "unfold": "font-size:80%;cursor:pointer",
    "json": "margin:0;white-space:pre-wrap",
    "raw_label": "font-size:80%;color:#555;margin-top:2px",
    "raw": "margin:0;white-space:pre-wrap;word-break:break-all",
}
SERVER_LABEL = "← server (python -m kitchen.mcp)"


class ShownFrame(Protocol):
    """What a view reads of a frame (`kitchen.mcp.frames.Frame` has it all)."""

    raw: str | None
    time: float

    @property
    def kind(self) -> str: ...

    @property
    def sender(self) -> str: ...

    @property
    def is_error_result(self) -> bool: ...

    def headline(self) -> str: ...

    def summary(self) -> str: ...

    def pretty(self) -> str: ...


def _tag(tag: str, style: str, body: str, **fill: Any) -> str:
    return f"<{tag} style='{STYLES[style].format(**fill)}'>{body}</{tag}>"


def _bubble(f: ShownFrame, times: bool) -> str:
    """One frame: client frames on the left, server frames on the right, errors in red."""
    error = f.kind in ("error", "invalid") or f.is_error_result
    colour = ERROR_COLOUR if error else (CLIENT_COLOUR if f.sender == "client" else SERVER_COLOUR)
    align = "flex-start" if f.sender == "client" else "flex-end"
    raw_block = (_tag("div", "raw_label", "exact line on the wire:") + _tag("pre", "raw", html.escape(f.raw))
                 if f.raw is not None else "")
    when = f" · {f.time:.3f} s" if times else ""
    inner = (_tag("div", "headline", f"<b>{html.escape(f.headline())}</b>"
                                     f" {_tag('span', 'muted', f'· {f.sender}{when}')}")
             + _tag("div", "summary", html.escape(f.summary()))
             + f"<details>{_tag('summary', 'unfold', 'JSON')}"
             + _tag("pre", "json", html.escape(f.pretty())) + f"{raw_block}</details>")
    return _tag("div", "row", _tag("div", "bubble", inner, colour=colour), align=align)


def conversation(frames: Sequence[ShownFrame], text: str, times: bool = True) -> HTML:
    """The frames as two columns, client left and server right; raw JSON unfolds. `text`: the plain view."""
    head = _tag("div", "head", f"<span>client (the harness) →</span><span>{len(frames)} frames</span>"
                               f"<span>{SERVER_LABEL}</span>")
    return HTML(_tag("div", "page", head + "".join(_bubble(f, times) for f in frames)), text)


def tool_table(tools: Sequence[tuple[str, bool, Sequence[str]]]) -> HTML:
    """Every tool on a server, as (name, hidden from the model?, parameter names)."""
    rows = [(name, "hidden (agent-only)" if hidden else "shown to the model", ", ".join(params) or "(none)")
            for name, hidden, params in tools]
    return table(rows, ["tool", "model sees it?", "parameters"])
