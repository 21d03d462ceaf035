"""ipywidgets interfaces for the notebooks. The logic behind each lives in a tested module
(`kitchen.chapters.lab`, `kitchen.harness.loop`, ...); these functions only lay it out and wire the buttons.

Every widget carries a CSS class starting with `kitchen-` so the browser tests can find it.
"""

from __future__ import annotations

import html
from typing import Callable, Sequence

import ipywidgets as w
from IPython.display import display

from kitchen.model.selection import choose
from kitchen.views.display import visible
from kitchen.harness.loop import Event
from kitchen.chapters.lab import ask_tools_off, ask_tools_on, available_sources, answer_line, exact_answer
from kitchen.model.load import load_model
from kitchen.views.plots import top_k_figure
from kitchen.harness.prompts import edit_schema, preview_tools
from kitchen.model.replies import Generation, Token
from kitchen.tools.schemas import as_schema

PANE_STYLE = ("font-family:monospace;white-space:pre-wrap;border:1px solid #bbb;border-radius:6px;"
              "padding:6px;min-height:120px")


def _reply_html(tokens: Sequence[Token], current: int) -> str:
    spans = []
    for i, t in enumerate(tokens):
        text = html.escape(t.text or ("⏎" if i == len(tokens) - 1 else ""))
        if i == current:
            spans.append(f'<span style="background:#2b7bba;color:white;border-radius:3px">{text or "∅"}</span>')
        elif i < current:
            spans.append(f"<span>{text}</span>")
        else:
            spans.append(f'<span style="color:#aaa">{text}</span>')
    return f'<div style="{PANE_STYLE}">{"".join(spans)}</div>'


def step_through(generation: Generation, start: int = 0) -> w.VBox:
    """Walk a reply one token at a time: the text so far, the token, and its top-k candidates
    (under a grammar, the ones its mask removed are marked)."""
    tokens = generation.tokens
    slider = w.IntSlider(value=start, min=0, max=len(tokens) - 1, description="token",
                         continuous_update=False, layout=w.Layout(width="60%"))
    back = w.Button(description="◀ Back", layout=w.Layout(width="90px"))
    forward = w.Button(description="Next ▶", layout=w.Layout(width="90px"))
    back.add_class("kitchen-back")
    forward.add_class("kitchen-next")
    caption = w.HTML()
    caption.add_class("kitchen-caption")
    text = w.HTML()
    plot = w.Output()
    plot.add_class("kitchen-topk")

    def show(_=None) -> None:
        i = slider.value
        t = tokens[i]
        removed = sum(c.allowed is False for c in t.top)
        caption.value = (f"<b>step {i + 1} of {len(tokens)}</b>: token {t.token_id} "
                         f"<code>{html.escape(repr(visible(t.text)))}</code>, probability {t.prob:.1%}"
                         + (f" · the grammar removed {removed} of the model's top {len(t.top)}" if removed else ""))
        text.value = _reply_html(tokens, i)
        with plot:
            plot.clear_output(wait=True)
            if t.top:
                display(top_k_figure(t))
            else:
                print("No candidates were recorded for this step (generate with top_k > 0).")

    back.on_click(lambda _: setattr(slider, "value", max(0, slider.value - 1)))
    forward.on_click(lambda _: setattr(slider, "value", min(len(tokens) - 1, slider.value + 1)))
    slider.observe(show, names="value")
    show()
    box = w.VBox([w.HBox([back, forward, slider]), caption, text, plot])
    box.add_class("kitchen-step-through")
    return box


class StreamPane:
    """A titled pane that text can be streamed into."""

    def __init__(self, title: str, css: str):
        self.title = w.HTML(f"<b>{html.escape(title)}</b>")
        self.body = w.HTML(f'<div style="{PANE_STYLE}"></div>')
        self.footer = w.HTML()
        self.box = w.VBox([self.title, self.body, self.footer], layout=w.Layout(width="50%"))
        self.box.add_class(css)
        self.parts: list[str] = []

    def reset(self) -> None:
        self.parts = []
        self.body.value = f'<div style="{PANE_STYLE}"></div>'
        self.footer.value = ""

    def write(self, text: str, style: str = "") -> None:
        piece = html.escape(text)
        self.parts.append(f'<span style="{style}">{piece}</span>' if style else piece)
        self.body.value = f'<div style="{PANE_STYLE}">{"".join(self.parts)}</div>'


class ComparePanes:
    """Tools off and tools on, side by side: the panes, and a run that streams into them."""

    def __init__(self, tools: Sequence[Callable], max_new_tokens: int = 256):
        self.tools, self.max_new_tokens = tools, max_new_tokens
        self.off = StreamPane("Tools off", "kitchen-pane-off")
        self.on = StreamPane("Tools on", "kitchen-pane-on")
        self.box = w.HBox([self.off.box, self.on.box])

    def reset(self) -> None:
        self.off.reset()
        self.on.reset()

    def run(self, model, question: str) -> None:
        self.reset()
        exact = exact_answer(question)
        try:
            gen = ask_tools_off(model, question, lambda t: self.off.write(t.text), self.max_new_tokens)
            self.off.footer.value = (f"{gen.new_tokens} tokens, {gen.seconds:.1f} s on this machine · "
                                     f"{html.escape(answer_line(gen.text, exact))}")
            trace = ask_tools_on(model, question, self.tools, lambda e: _on_event(self.on, e),
                                 self.max_new_tokens)
            tokens = sum(s.generation.new_tokens for s in trace.steps)
            self.on.footer.value = (f"{len(trace.steps)} model calls, {tokens} tokens, {trace.seconds:.1f} s on this machine · "
                                    f"{html.escape(answer_line(trace.answer or '', exact))}")
        except LookupError as err:  # a replay model asked something it never recorded
            message = f"<span style='color:#b00'>{html.escape(str(err))}</span>"
            self.off.footer.value = self.on.footer.value = message


def tools_off_on(model, tools: Sequence[Callable], question: str = "What is 987 × 654?",
                 max_new_tokens: int = 256) -> w.VBox:
    """Type a question, press Run: tools off and tools on, side by side, streamed."""
    box = w.Text(value=question, description="Question", layout=w.Layout(width="70%"))
    box.add_class("kitchen-question")
    run = w.Button(description="Run", button_style="primary")
    run.add_class("kitchen-run")
    panes = ComparePanes(tools, max_new_tokens)

    def go(_=None) -> None:
        run.disabled = True
        try:
            panes.run(model, box.value)
        finally:
            run.disabled = False

    run.on_click(go)
    go()
    ui = w.VBox([w.HBox([box, run]), panes.box])
    ui.add_class("kitchen-tools-off-on")
    return ui


def dashboard(tools: Sequence[Callable], question: str = "What is 1234 × 5678?",
              max_new_tokens: int = 256) -> w.VBox:
    """The classroom dashboard: pick a model, ask, watch tools off and on side by side.

    The picker offers each installed pack (live) and each tier's recordings (replay, instant).
    """
    sources = available_sources()
    try:  # start on what load_model() would choose (KITCHEN_MODEL decides in a classroom)
        chosen = choose()[:2]
    except ValueError:
        chosen = None
    default = chosen if chosen in [v for _, v in sources] else sources[0][1]
    picker = w.Dropdown(options=sources, value=default, description="Model",
                        layout=w.Layout(width="380px"))
    picker.add_class("kitchen-tier")
    box = w.Text(value=question, description="Question", layout=w.Layout(width="60%"))
    box.add_class("kitchen-question")
    run = w.Button(description="Run", button_style="primary")
    run.add_class("kitchen-run")
    reset = w.Button(description="Reset")
    reset.add_class("kitchen-reset")
    announce = w.HTML()
    panes = ComparePanes(tools, max_new_tokens)

    def go(_=None) -> None:
        run.disabled = True
        try:
            tier, source = picker.value
            model = load_model(tier, source, announce=False)
            announce.value = f"<small>{html.escape(model.describe())}</small>"
            panes.run(model, box.value)
        finally:
            run.disabled = False

    def clear(_=None) -> None:
        panes.reset()
        box.value = question
        announce.value = ""

    run.on_click(go)
    reset.on_click(clear)
    ui = w.VBox([w.HBox([picker, box, run, reset]), announce, panes.box])
    ui.add_class("kitchen-dashboard")
    return ui


def _on_event(pane: StreamPane, event: Event) -> None:
    """Show a harness run in a pane: the model's text, then each call's result inline."""
    if event.kind == "token":
        pane.write(event.data["token"].text)
    elif event.kind == "result":
        r = event.data["result"]
        colour = "#1a7f37" if r.ok else "#b00"
        pane.write(f"\n→ {r.name}: {r.content}\n", f"color:{colour};font-weight:bold")
    elif event.kind == "cap":
        pane.write("\n" + event.data["answer"], "color:#b00")


def _preview_html(model, schema: dict, messages, base_tokens: int) -> tuple[str, str]:
    """The schema editor's token count (against the original's) and `<tools>` block, as HTML."""
    text, tokens = preview_tools(model, [schema], messages)
    delta = tokens - base_tokens
    count = (f"<b>{tokens:,} prompt tokens</b> ({'+' if delta >= 0 else ''}{delta} against the "
             f"original's {base_tokens:,})")
    return count, f'<pre style="white-space:pre-wrap">{html.escape(text)}</pre>'


def schema_editor(model, tool, messages=None) -> w.VBox:
    """Edit a tool's description, add or remove a parameter: the `<tools>` block and the prompt's
    token count update as you type. Logic: `kitchen.harness.prompts.edit_schema` and `preview_tools`."""
    original = as_schema(tool)
    state = {"schema": original}
    _, base_tokens = preview_tools(model, [original], messages)
    description = w.Textarea(value=original["function"]["description"], description="Description",
                             layout=w.Layout(width="95%", height="90px"))
    description.add_class("kitchen-description")
    params = w.Dropdown(options=list(original["function"]["parameters"]["properties"]), description="Parameter")
    remove = w.Button(description="Remove")
    new_name = w.Text(placeholder="name", description="New", layout=w.Layout(width="220px"))
    new_type = w.Dropdown(options=["string", "integer", "number", "boolean"], layout=w.Layout(width="110px"))
    new_text = w.Text(placeholder="what it means", layout=w.Layout(width="300px"))
    add = w.Button(description="Add")
    reset = w.Button(description="Reset")
    count = w.HTML()
    count.add_class("kitchen-token-count")
    block = w.HTML()
    problem = w.HTML()

    def show() -> None:
        count.value, block.value = _preview_html(model, state["schema"], messages, base_tokens)
        params.options = list(state["schema"]["function"]["parameters"]["properties"])

    def on_description(change) -> None:
        state["schema"] = edit_schema(state["schema"], description=change["new"])
        show()

    def on_remove(_) -> None:
        if params.value:
            state["schema"] = edit_schema(state["schema"], remove=params.value)
            show()

    def on_add(_) -> None:
        try:
            state["schema"] = edit_schema(state["schema"], add=(new_name.value.strip(), new_type.value,
                                                                new_text.value.strip()))
            problem.value = ""
        except ValueError as err:
            problem.value = f"<span style='color:#b00'>{html.escape(str(err))}</span>"
        show()

    def on_reset(_) -> None:
        state["schema"] = original
        description.value = original["function"]["description"]
        show()

    description.observe(on_description, names="value")
    remove.on_click(on_remove)
    add.on_click(on_add)
    reset.on_click(on_reset)
    show()
    ui = w.VBox([description, w.HBox([params, remove, reset]), w.HBox([new_name, new_type, new_text, add]),
                 problem, count, block])
    ui.add_class("kitchen-schema-editor")
    return ui


PHASES = {"generated": "1 · generate", "parsed": "2 · parse", "result": "3 · run", "appended": "4 · append",
          "answer": "done: the answer", "cap": "done: the cap"}


def _messages_html(messages) -> str:
    rows = []
    for m in messages:
        content = m.get("content") or ""
        if m.get("tool_calls"):
            content += " ".join(f"[call {c['function']['name']}({c['function']['arguments']})]" for c in m["tool_calls"])
        rows.append(f"<tr><td style='vertical-align:top;padding:1px 6px'><b>{html.escape(m['role'])}</b></td>"
                    f"<td style='padding:1px 6px'><pre style='margin:0;white-space:pre-wrap'>"
                    f"{html.escape(content[:400])}</pre></td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def _phase_html(event: Event, added: str) -> str:
    """What the debugger shows for one phase of a harness run; `added` is the prompt's new part."""
    if event.kind == "generated":
        g = event.data["generation"]
        return (f"<p>The new part of the prompt ({len(added)} characters):</p>"
                f"<pre style='white-space:pre-wrap;background:#f4f4f4;color:#111'>{html.escape(added)}</pre>"
                f"<p>The model wrote {g.new_tokens} tokens in {g.seconds:.1f} s on this machine "
                f"(prompt {len(g.prompt_ids):,} tokens, {g.prefilled_tokens:,} pre-filled), "
                f"stopped by {g.stop_reason}:</p><pre style='white-space:pre-wrap'>{html.escape(g.text)}</pre>")
    if event.kind == "parsed":
        p = event.data["parsed"]
        lines = [f"call {c.name}({c.arguments}) · found as {c.format}" for c in p.calls]
        lines += [f"error {e.kind}: {e.message}" for e in p.errors]
        return "<pre>" + html.escape("\n".join(lines) or "no call: the text is the answer") + "</pre>"
    if event.kind == "result":
        r = event.data["result"]
        return (f"<pre style='white-space:pre-wrap'>{html.escape(r.name)} → "
                f"{'ok' if r.ok else r.error_kind}\n{html.escape(r.content)}</pre>")
    if event.kind == "appended":
        return "<p>Appended to the conversation:</p>" + _messages_html(event.data["messages"])
    return f"<pre style='white-space:pre-wrap'>{html.escape(event.data['answer'])}</pre>"


def harness_debugger(harness, messages) -> w.VBox:
    """Step through a harness run: each Next shows one phase (generate, parse, run, append)."""
    events = harness.events(messages)
    next_button = w.Button(description="Next ▶", button_style="primary")
    next_button.add_class("kitchen-next")
    finish = w.Button(description="Run to the end")
    status = w.HTML("<b>Press Next to generate the first reply.</b>")
    status.add_class("kitchen-debugger-status")
    detail = w.HTML()
    conversation = w.HTML()
    state = {"done": False}

    def advance(_=None) -> bool:
        """Run events up to the next phase worth showing; False when the run is over."""
        if state["done"]:
            return False
        for event in events:
            if event.kind == "prompt":
                state["added"] = event.data["added"]
                continue
            if event.kind == "token":
                continue
            show(event)
            if event.kind in ("answer", "cap"):
                state["done"] = True
                next_button.disabled = finish.disabled = True
            return True
        state["done"] = True
        return False

    def show(event) -> None:
        status.value = f"<b>Step {event.step} · {PHASES[event.kind]}</b>"
        detail.value = _phase_html(event, state.get("added", ""))
        conversation.value = "<p><b>The conversation so far</b></p>" + _messages_html(event.trace.messages)

    next_button.on_click(advance)
    finish.on_click(lambda _: [None for _ in iter(advance, False)])
    ui = w.VBox([w.HBox([next_button, finish]), status, detail, conversation])
    ui.add_class("kitchen-debugger")
    return ui
