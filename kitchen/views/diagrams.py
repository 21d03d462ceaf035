"""Sequence diagrams drawn from real runs, in Mermaid: the harness loop of a `Trace` (chapter 03)
and the MCP exchange of a `WireLog` (chapter 05).

A `Mermaid` shows as a diagram in JupyterLab (its output has the `text/vnd.mermaid` type, which
JupyterLab renders natively, with no extension) and as its source text anywhere else.

>>> from kitchen.mcp.frames import WireLog
>>> wire = WireLog()
>>> _ = wire.record("→", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
>>> _ = wire.record("←", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
>>> print(session_diagram(wire))
sequenceDiagram
    participant C as Client (harness)
    participant S as MCP server
    C->>S: tools/list (id 1)
    S-->>C: result of tools/list (id 1): 0 tools
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

MIME = "text/vnd.mermaid"
LABEL = 60  # characters of a message kept in a diagram's arrow label


@dataclass(frozen=True)
class Mermaid:
    """A Mermaid diagram's source; displays as the diagram in JupyterLab."""

    source: str

    def __str__(self) -> str:
        return self.source

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return {MIME: self.source, "text/plain": self.source}


def label(text: Any, limit: int = LABEL) -> str:
    """`text` made safe for one Mermaid arrow label: one line, no characters Mermaid reads as
    syntax (`;`, `#`, `<`, `>`, `:`, quotes, braces), at most `limit` characters.

    >>> label('{"name": "calculator"}; <tool_call>')
    '(name= calculator), ‹tool_call›'
    """
    text = re.sub(r"\s+", " ", str(text)).strip()
    for old, new in (("{", "("), ("}", ")"), (";", ","), ("#", "no. "), ("<", "‹"), (">", "›"),
                     ('"', ""), ("'", ""), (":", "="), ("`", "")):
        text = text.replace(old, new)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_label(name: str, arguments: dict) -> str:
    """`name(key=value, ...)` for an arrow label.

    >>> call_label("calculator", {"expression": "12 * 34"})
    'calculator(expression=12 * 34)'
    """
    return label(f"{name}(" + ", ".join(f"{k}={v}" for k, v in arguments.items()) + ")", 50)


def loop_diagram(trace) -> Mermaid:
    """The harness loop of one run: each model call with its step number and tokens, each call
    found, the tool's result or error, and how the run ended."""
    lines = ["sequenceDiagram", "    participant H as Harness", "    participant M as Model",
             "    participant T as Tools"]
    for step in trace.steps:
        g = step.generation
        lines.append(f"    H->>M: step {step.index}: prompt {len(g.prompt_ids):,} tokens "
                     f"({g.prefilled_tokens:,} pre-filled)")
        calls, errors = step.parsed.calls, step.parsed.errors
        if calls:
            said = f"{len(calls)} call{'s' if len(calls) > 1 else ''} ({', '.join(sorted({c.format for c in calls}))})"
        elif errors:
            said = "a call that cannot be read"
        else:
            said = label(g.text) or "(nothing)"
        lines.append(f"    M-->>H: {len(g.token_ids)} tokens: {said}")
        for result in step.results:
            if result.kind == "parse_error":  # text that looked like a call: nothing ran
                lines.append(f"    Note over H: unreadable call ({result.error_kind}), error fed back")
                continue
            lines.append(f"    H->>T: {call_label(result.name, result.arguments)}")
            outcome = label(result.content, 45) if result.ok else f"error ({result.error_kind})"
            lines.append(f"    T-->>H: {outcome}")
        if step.nudge:
            lines.append(f"    Note over H: empty reply, asked again: {label(step.nudge, 40)}")
        if step.appended:
            lines.append(f"    Note over H: {len(step.appended)} message(s) appended")
    if trace.stop_reason == "answer":
        lines.append(f"    Note over H,M: answer after {len(trace.steps)} model call(s)")
    elif trace.stop_reason == "cap":
        lines.append(f"    Note over H,M: stopped by the cap after {len(trace.steps)} model calls")
    return Mermaid("\n".join(lines))


def _answer_summary(frame) -> str:
    result = frame.message.get("result")
    if isinstance(result, dict):
        if "tools" in result:
            return f"{len(result['tools'])} tools"
        if "content" in result:
            texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
            return ("error: " if result.get("isError") else "") + label(" ".join(texts), 40)
        if "protocolVersion" in result:
            return f"version {result['protocolVersion']}"
    return ""


def session_diagram(frames: Iterable) -> Mermaid:
    """The MCP exchange of a wire log: requests, their answers, notifications both ways."""
    lines = ["sequenceDiagram", "    participant C as Client (harness)", "    participant S as MCP server"]
    for frame in frames:
        src, dst = ("C", "S") if frame.direction == "→" else ("S", "C")
        kind, ident = frame.kind, frame.id
        if kind == "request":
            params = frame.message.get("params")
            tool = f" {label(params.get('name'), 30)}" if frame.method == "tools/call" and isinstance(params, dict) else ""
            lines.append(f"    {src}->>{dst}: {label(frame.method)}{tool} (id {label(ident)})")
        elif kind == "notification":
            lines.append(f"    {src}-){dst}: {label(frame.method)}")
        elif kind == "response":
            summary = _answer_summary(frame)
            lines.append(f"    {src}-->>{dst}: result of {label(frame.method or '?')} (id {label(ident)})"
                         + (f": {summary}" if summary else ""))
        elif kind == "error":
            error = frame.message.get("error", {})
            lines.append(f"    {src}--x{dst}: error {label(error.get('code'))} (id {label(ident)}): "
                         f"{label(error.get('message', ''), 40)}")
        else:
            lines.append(f"    Note over {src},{dst}: a line that is not JSON-RPC: {label(frame.raw or '', 40)}")
    return Mermaid("\n".join(lines))
