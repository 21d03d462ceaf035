"""Static pictures of a notebook's saved widgets, for a learner who opens it before running it.

JupyterLab draws a widget output (`application/vnd.jupyter.widget-view+json`) only when the
notebook is trusted, and trust is a signature each user's machine keeps for itself: a chapter
fresh from the repository is not trusted, so JupyterLab shows the output's `text/plain` instead,
`VBox(children=(HBox(...`. So each widget output also carries a `text/html` picture of the widget,
drawn here from the notebook's saved widget state (`metadata.widgets`). Untrusted, JupyterLab
shows the picture (sanitized, so it is plain HTML with inline styles, no script); trusted, it
shows the widget itself, restored from the same state. Both need every model a view refers to in
that state, which `missing_models` checks.

Everything here works on the notebook's JSON as plain dicts (what `json.load` or `nbformat.read`
give), so the committed notebooks can be redrawn without running them.
"""

from __future__ import annotations

import html
import re
from typing import Callable, Iterator, Mapping

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
PICTURE_CLASS = "kitchen-widget-picture"
NOTE = "A picture of this widget as the notebook was saved: run the notebook to use it."
REFERENCE = "IPY_MODEL_"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

# ipywidgets' colours for `button_style` and `box_style`.
STYLE_COLOURS = {"primary": "#2196f3", "success": "#4caf50", "info": "#00bcd4",
                 "warning": "#ff9800", "danger": "#f44336"}
# Layout traits that become CSS as they are (`max_width` -> `max-width`).
LAYOUT_CSS = ("width", "height", "min_width", "max_width", "min_height", "max_height", "margin", "padding",
              "border_top", "border_right", "border_bottom", "border_left", "flex", "flex_flow",
              "justify_content", "align_items", "align_self", "align_content", "overflow", "order",
              "visibility", "grid_gap", "grid_template_columns", "grid_template_rows", "grid_area")
# Style traits and the CSS property each sets.
STYLE_CSS = {"button_color": "background-color", "background": "background", "text_color": "color",
             "font_weight": "font-weight", "font_size": "font-size", "font_family": "font-family",
             "font_style": "font-style", "text_decoration": "text-decoration"}
LEAF = "margin:2px;"
BUTTON = "padding:2px 10px;border:0;border-radius:2px;background-color:#eee;color:#000;font:inherit;"
FILL = "flex:1 1 auto;min-width:0"  # a control takes the room its row leaves, and no more
NOTE_STYLE = "color:#777;font-size:85%;font-style:italic;margin:2px"

Models = Mapping[str, Mapping]


def saved_models(nb: Mapping) -> dict[str, dict]:
    """The notebook's saved widget models by id (empty when it saved none)."""
    return dict(nb.get("metadata", {}).get("widgets", {}).get(STATE, {}).get("state", {}))


def view_outputs(nb: Mapping) -> Iterator[tuple[int, dict]]:
    """(cell index, output) for each output that shows a widget, cells counted from 0."""
    for index, cell in enumerate(nb.get("cells", [])):
        for output in cell.get("outputs", []):
            if VIEW in output.get("data", {}):
                yield index, output


def references(value: object) -> Iterator[str]:
    """The model ids a model's state refers to: its `IPY_MODEL_<id>` values (children, layout,
    style) and the widgets shown inside it (an Output widget's outputs)."""
    if isinstance(value, str):
        if value.startswith(REFERENCE):
            yield value[len(REFERENCE):]
    elif isinstance(value, list):
        for item in value:
            yield from references(item)
    elif isinstance(value, dict):
        view = value.get(VIEW)
        if isinstance(view, dict) and view.get("model_id"):
            yield view["model_id"]
        for key, item in value.items():
            if key != VIEW:
                yield from references(item)


def missing_models(nb: Mapping) -> list[str]:
    """One line for each model a widget output needs that the saved state lacks: the view's own
    model, or one it refers to, however deep. Empty when every view can be restored."""
    models, problems = saved_models(nb), []
    for index, output in view_outputs(nb):
        root = output["data"][VIEW]["model_id"]
        seen, todo = {root}, [(root, None)]
        while todo:
            model_id, parent = todo.pop()
            if model_id not in models:
                whose = "the output's own model" if parent is None else f"referred to by {parent}"
                problems.append(f"cell #{index + 1}: model {model_id} ({whose}) is not in the saved state")
                continue
            for child in references(models[model_id].get("state", {})):
                if child not in seen:
                    seen.add(child)
                    todo.append((child, model_id))
    return problems


def picture(models: Models, model_id: str) -> str:
    """The widget `model_id` as static HTML, with a line saying it is a picture."""
    return (f'<div class="{PICTURE_CLASS}" title="{html.escape(NOTE)}">{draw(models, model_id)}'
            f'<div style="{NOTE_STYLE}">{html.escape(NOTE)}</div></div>')


def add_pictures(nb: dict) -> int:
    """Give every widget output of `nb` its picture as `text/html`, replacing an earlier picture;
    return how many outputs changed. An output whose `text/html` is not a picture is left alone."""
    models, changed = saved_models(nb), 0
    for _, output in view_outputs(nb):
        data = output["data"]
        if "text/html" in data and PICTURE_CLASS not in _text(data["text/html"]):
            continue
        drawn = picture(models, data[VIEW]["model_id"])
        if _text(data.get("text/html", "")) != drawn:
            data["text/html"] = drawn
            changed += 1
    return changed


def draw(models: Models, model_id: str) -> str:
    """One widget and everything inside it, as HTML; "" for a hidden one."""
    model = models.get(model_id)
    if model is None:
        return f'<span style="color:#b00">(widget {html.escape(model_id)} was not saved)</span>'
    state = model.get("state", {})
    css = _layout_css(models, state.get("layout"))
    if css is None:
        return ""
    name = model.get("model_name", state.get("_model_name", ""))
    return _drawer(name)(models, state, css + _style_css(models, state.get("style")))


def _text(value: str | list[str]) -> str:
    """A notebook's multi-line string: one string, or the list of its lines."""
    return value if isinstance(value, str) else "".join(value)


def _state_of(models: Models, reference: object) -> Mapping:
    if isinstance(reference, str) and reference.startswith(REFERENCE):
        return models.get(reference[len(REFERENCE):], {}).get("state", {})
    return {}


def _layout_css(models: Models, reference: object) -> str | None:
    """The inline CSS of a widget's Layout; None when the layout hides the widget."""
    layout = _state_of(models, reference)
    if layout.get("display") == "none":
        return None
    css = "".join(f"{key.replace('_', '-')}:{layout[key]};" for key in LAYOUT_CSS if layout.get(key))
    border = layout.get("border")  # ipywidgets 7 kept one `border` trait
    return css + (f"border:{border};" if border else "")


def _style_css(models: Models, reference: object) -> str:
    style = _state_of(models, reference)
    return "".join(f"{prop}:{style[key]};" for key, prop in STYLE_CSS.items() if style.get(key))


def _description(state: Mapping) -> str:
    """The label ipywidgets puts left of a control, or ""."""
    text = state.get("description") or ""
    if not text:
        return ""
    shown = text if state.get("description_allow_html") else html.escape(text)
    return (f'<span style="display:inline-block;min-width:80px;text-align:right;margin-right:8px;'
            f'vertical-align:top">{shown}</span>')


def _box(direction: str) -> Callable[[Models, Mapping, str], str]:
    def drawn(models: Models, state: Mapping, css: str) -> str:
        colour = STYLE_COLOURS.get(state.get("box_style", ""))
        border = f"border:1px solid {colour};" if colour else ""
        inside = "".join(draw(models, ref[len(REFERENCE):]) for ref in state.get("children", [])
                         if isinstance(ref, str) and ref.startswith(REFERENCE))
        return f'<div style="display:flex;flex-direction:{direction};{border}{css}">{inside}</div>'
    return drawn


def _html(models: Models, state: Mapping, css: str) -> str:
    return f'<div style="{LEAF}{css}">{_description(state)}{state.get("value") or ""}</div>'


def _label(models: Models, state: Mapping, css: str) -> str:
    return f'<div style="{LEAF}{css}">{_description(state)}{html.escape(str(state.get("value") or ""))}</div>'


def _button(models: Models, state: Mapping, css: str) -> str:
    colour = STYLE_COLOURS.get(state.get("button_style", ""))
    scheme = f"background-color:{colour};color:white;" if colour else ""
    return (f'<button disabled style="{LEAF}{BUTTON}{scheme}{css}">'
            f'{html.escape(state.get("description") or "")}</button>')


def _slider(models: Models, state: Mapping, css: str) -> str:
    attrs = " ".join(f'{key}="{html.escape(str(state[key]))}"' for key in ("min", "max", "step", "value")
                     if state.get(key) is not None)
    readout = f'<span style="margin-left:8px">{html.escape(str(state.get("value")))}</span>' \
        if state.get("readout", True) else ""
    return (f'<div style="display:flex;align-items:center;{LEAF}{css}">{_description(state)}'
            f'<input type="range" disabled {attrs} style="{FILL}">{readout}</div>')


def _options(state: Mapping) -> tuple[list[str], int | None]:
    labels = list(state.get("_options_labels", []))
    index = state.get("index")
    return labels, index if isinstance(index, int) else None


def _radio(models: Models, state: Mapping, css: str) -> str:
    labels, index = _options(state)
    rows = "".join(f'<div><label><input type="radio" disabled{" checked" if i == index else ""}> '
                   f"{html.escape(label)}</label></div>" for i, label in enumerate(labels))
    return f'<div style="display:flex;{LEAF}{css}">{_description(state)}<div>{rows}</div></div>'


def _dropdown(models: Models, state: Mapping, css: str) -> str:
    labels, index = _options(state)
    options = "".join(f'<option{" selected" if i == index else ""}>{html.escape(label)}</option>'
                      for i, label in enumerate(labels))
    return f'<div style="{LEAF}{css}">{_description(state)}<select disabled>{options}</select></div>'


def _text_box(kind: str) -> Callable[[Models, Mapping, str], str]:
    def drawn(models: Models, state: Mapping, css: str) -> str:
        value = html.escape(str(state.get("value") if state.get("value") is not None else ""))
        return (f'<div style="display:flex;{LEAF}{css}">{_description(state)}'
                f'<input type="{kind}" disabled value="{value}" style="{FILL}"></div>')
    return drawn


def _textarea(models: Models, state: Mapping, css: str) -> str:
    value = html.escape(state.get("value") or "")
    return (f'<div style="display:flex;{LEAF}{css}">{_description(state)}'
            f'<textarea disabled rows="{state.get("rows") or 4}" style="{FILL}">{value}</textarea></div>')


def _checkbox(models: Models, state: Mapping, css: str) -> str:
    checked = " checked" if state.get("value") else ""
    return f'<div style="{LEAF}{css}">{_description(state)}<input type="checkbox" disabled{checked}></div>'


def _output(models: Models, state: Mapping, css: str) -> str:
    """An Output widget: what it captured, drawn as JupyterLab would."""
    return f'<div style="{LEAF}{css}">{"".join(_captured(models, o) for o in state.get("outputs", []))}</div>'


def _captured(models: Models, output: Mapping) -> str:
    if output.get("output_type") == "stream":
        return f'<pre style="margin:0">{html.escape(_text(output.get("text", "")))}</pre>'
    if output.get("output_type") == "error":
        trace = ANSI.sub("", "\n".join(output.get("traceback", [])))
        return f'<pre style="margin:0;background:#fdd">{html.escape(trace)}</pre>'
    data = output.get("data", {})
    if VIEW in data:
        return draw(models, data[VIEW]["model_id"])
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            return f'<img alt="figure" src="data:{mime};base64,{_text(data[mime]).strip()}">'
    if "image/svg+xml" in data or "text/html" in data:
        return _text(data.get("text/html") or data["image/svg+xml"])
    return f'<pre style="margin:0">{html.escape(_text(data.get("text/plain", "")))}</pre>'


def _other(models: Models, state: Mapping, css: str) -> str:
    """A widget with no drawing of its own: its label and value as text."""
    value = state.get("value")
    shown = html.escape(str(value)) if value is not None else ""
    return f'<div style="{LEAF}{css}">{_description(state)}{shown}</div>'


DRAWERS: dict[str, Callable[[Models, Mapping, str], str]] = {
    "VBoxModel": _box("column"), "HBoxModel": _box("row"), "BoxModel": _box("row"),
    "HTMLModel": _html, "HTMLMathModel": _html, "LabelModel": _label, "ButtonModel": _button,
    "RadioButtonsModel": _radio, "DropdownModel": _dropdown, "SelectModel": _dropdown,
    "TextModel": _text_box("text"), "PasswordModel": _text_box("password"), "TextareaModel": _textarea,
    "IntTextModel": _text_box("number"), "BoundedIntTextModel": _text_box("number"),
    "FloatTextModel": _text_box("number"), "BoundedFloatTextModel": _text_box("number"),
    "CheckboxModel": _checkbox, "OutputModel": _output,
}


def _drawer(model_name: str) -> Callable[[Models, Mapping, str], str]:
    if model_name.endswith("SliderModel") and "Range" not in model_name:
        return _slider
    return DRAWERS.get(model_name, _other)
