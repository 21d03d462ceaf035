"""What every format scanner of the parser gets and gives back.

A scanner gets a `Context` (the text, the known tools, the text's fences) and returns hits: a
`ToolCall` or a `ParseError` for each stretch of text it claims. It decides what a stretch is as a
`ScanVerdict`, and `make_hit` turns that into the hit. This module owns only that contract; it finds
nothing itself, and does not decide between scanners that claim the same text (`merging`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kitchen.harness.parsing.results import Hit, ParseError, ToolCall
from kitchen.harness.parsing.scanning import Fence
from kitchen.harness.parsing.known_tools import Tool


@dataclass
class Context:
    """One text to scan, with what every scanner needs to know about it."""

    text: str
    tools: dict[str, Tool]
    fences: list[Fence]
    stop: int        # end of the text without its trailing whitespace


@dataclass(frozen=True)
class ScanVerdict:
    """What a piece of text turned out to be: kind "call" (name, arguments) or an error kind
    (message)."""

    kind: str
    name: str = ""
    arguments: dict | None = None
    message: str = ""


def make_hit(ctx: Context, fmt: str, verdict: ScanVerdict, start: int, end: int) -> Hit:
    """The call or failed attempt that `verdict` says text[start:end] is, found as format `fmt`."""
    raw = ctx.text[start:end]
    if verdict.kind == "call":
        return ToolCall(verdict.name, verdict.arguments or {}, fmt, raw, start, end)
    return ParseError(verdict.kind, verdict.message, raw, fmt, start, end)
