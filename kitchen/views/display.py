"""Small HTML views for notebooks: tokens as chips, text with parts marked, simple tables.

Each view is an object with `_repr_html_` (what JupyterLab shows) and a plain-text `__repr__`
(what a terminal, a test or nbval sees), built from data only, so the same input always gives the
same output.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Sequence


# Colours that read well on a projector, light or dark theme.
SPECIAL = "#ffd7a8"  # control tokens such as <|im_start|>
RESERVED = "#b9e6b0"  # tool-call tokens such as <tool_call>
PLAIN = "#e3e8f0"


@dataclass
class HTML:
    """HTML for the notebook, text for everything else."""

    html: str
    text: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def _chip(label: str, colour: str, title: str = "") -> str:
    return (f'<span title="{html.escape(title)}" style="display:inline-block;margin:1px;padding:1px 4px;'
            f'border-radius:4px;background:{colour};color:#111;font-family:monospace;white-space:pre">'
            f"{html.escape(label)}</span>")


def visible(piece: str) -> str:
    """A token's text with its spaces and line breaks made visible: `visible(" 12\\n") -> '␣12↵'`."""
    return piece.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")


def token_chips(tok, ids: Sequence[int], reserved: Sequence[str] = ("<tool_call>", "</tool_call>"),
                show_ids: bool = True) -> HTML:
    """Tokens as coloured chips: control tokens orange, tool-call tokens green, the rest grey."""
    # every control token (<|im_start|> too: `all_special_ids` lists only the end tokens here)
    special = {i for i, added in tok.added_tokens_decoder.items() if added.special}
    reserved_ids = {tok.convert_tokens_to_ids(t) for t in reserved}
    chips, words = [], []
    for i in ids:
        piece = tok.decode([i])
        colour = RESERVED if i in reserved_ids else SPECIAL if i in special else PLAIN
        label = f"{visible(piece)}" + (f" {i}" if show_ids else "")
        chips.append(_chip(label, colour, f"id {i}"))
        words.append(f"{visible(piece)}|{i}" if show_ids else visible(piece))
    legend = (f'<div style="font-size:85%;margin-top:4px">{len(ids)} tokens · '
              f'{_chip("control", SPECIAL)} {_chip("tool call", RESERVED)} {_chip("ordinary", PLAIN)}</div>')
    return HTML("<div>" + "".join(chips) + legend + "</div>", f"{len(ids)} tokens: " + " ".join(words))


def table(rows: Sequence[Sequence], header: Sequence[str]) -> HTML:
    """A plain table (HTML and aligned text)."""
    cells = [[str(c) for c in r] for r in rows]
    head = "".join(f"<th style='text-align:left;padding:2px 8px'>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td style='text-align:left;padding:2px 8px;font-family:monospace'>{html.escape(c)}</td>"
                                    for c in r) + "</tr>" for r in cells)
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) if cells else len(str(h))
              for i, h in enumerate(header)]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells]
    return HTML(f"<table>{'<tr>' + head + '</tr>'}{body}</table>", "\n".join(lines))


def marked_text(parts: Sequence[tuple[str, str]]) -> HTML:
    """Text in labelled parts, e.g. a rendered prompt: [(label, text), ...], each part boxed."""
    colours = ["#fff3c4", "#d8ecff", "#e5f7dc", "#fde2e4", "#ece4ff", "#e0f4f4", "#f3f3f3"]
    blocks, lines = [], []
    for n, (label, text) in enumerate(parts):
        colour = colours[n % len(colours)]
        blocks.append(f'<div style="background:{colour};color:#111;margin:2px 0;padding:2px 6px;border-radius:4px">'
                      f'<div style="font-size:80%;font-weight:bold">{html.escape(label)}</div>'
                      f'<pre style="margin:0;white-space:pre-wrap">{html.escape(text)}</pre></div>')
        lines.append(f"[{label}]\n{text}")
    return HTML("".join(blocks), "\n".join(lines))


def mask_steps(generation, only_changed: bool = True) -> HTML:
    """The steps of a constrained reply where the grammar overruled the model: what the model
    wanted most, the token written instead, and the candidates the mask removed.

    `only_changed=False` lists every step (the model's first choice may have been allowed).
    """
    rows = []
    for i, t in enumerate(generation.tokens):
        if not t.top:
            continue
        wanted = t.top[0]
        if only_changed and wanted.allowed is not False:
            continue
        removed = [repr(visible(c.text)) + f" {c.prob:.0%}" for c in t.top if c.allowed is False]
        written = "(end of turn)" if not t.text and i == len(generation.tokens) - 1 else repr(visible(t.text))
        rows.append([i + 1, f"{visible(wanted.text)!r} {wanted.prob:.1%}", f"{written} {t.prob:.1%}",
                     ", ".join(removed) or "-"])
    if not rows:
        return HTML("<i>The grammar never overruled the model's first choice in this reply.</i>",
                    "The grammar never overruled the model's first choice in this reply.")
    return table(rows, ["step", "the model wanted", "written instead", "removed by the grammar"])


def trace_view(trace, times: bool = False) -> HTML:
    """A harness run step by step: what the model wrote, what was parsed, what ran, what came back.
    `times` adds each step's seconds (they differ from machine to machine)."""
    blocks, lines = [], []
    for step in trace.steps:
        g = step.generation
        head = (f"Step {step.index} · prompt {len(g.prompt_ids):,} tokens ({g.prefilled_tokens:,} pre-filled) · "
                f"wrote {g.new_tokens} tokens" + (f" in {g.seconds:.1f} s" if times else ""))
        rows = [("grammar", f"tool_choice={step.tool_choice!r}")] if step.tool_choice else []
        if step.grammar_error:
            rows.append(("no grammar", step.grammar_error))
        rows.append(("model wrote", g.text.strip() or "(nothing)"))
        for call in step.parsed.calls:
            rows.append(("parsed", f"{call.name}({call.arguments}) · found as {call.format}"))
        for error in step.parsed.errors:
            rows.append(("parse error", f"{error.kind}: {error.message}"))
        for r in step.results:
            rows.append(("ran" if r.ok else "error", f"{r.name} → {r.content}"))
            rows += [("note", n) for n in r.notes]
        if step.nudge:
            rows.append(("harness asked", step.nudge))
        elif not step.parsed.found:
            rows.append(("answer", "no call: this text is the answer"))
        lines.append(head)
        lines += [f"  {k}: {v}" for k, v in rows]
        cells = "".join(f"<tr><td style='text-align:left;padding:1px 8px;vertical-align:top;color:#555'>{html.escape(k)}</td>"
                        f"<td style='text-align:left;padding:1px 8px'><pre style='margin:0;white-space:pre-wrap;text-align:left'>"
                        f"{html.escape(v)}</pre></td></tr>" for k, v in rows)
        blocks.append(f"<div style='margin:4px 0'><b>{html.escape(head)}</b><table>{cells}</table></div>")
    end = f"Ended by {trace.stop_reason}: {trace.answer}"
    lines.append(end)
    blocks.append(f"<div><b>{html.escape(end)}</b></div>")
    return HTML("".join(blocks), "\n".join(lines))
