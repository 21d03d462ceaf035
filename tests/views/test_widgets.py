"""The notebooks' widgets, driven without a browser: buttons clicked, values set, panes read."""

import pytest

from kitchen.harness.loop import Harness
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator
from kitchen.views.widgets import harness_debugger, schema_editor, step_through, tools_off_on

CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "987 * 654"}}\n</tool_call>'


def find(widget, css):
    """The first widget under `widget` that carries the CSS class `css`."""
    if css in getattr(widget, "_dom_classes", ()):
        return widget
    for child in getattr(widget, "children", ()):
        if (found := find(child, css)) is not None:
            return found
    return None


def test_step_through_moves_one_token_at_a_time():
    gen = ScriptedModel(["645,498."]).generate([{"role": "user", "content": "987 × 654?"}])
    ui = step_through(gen)
    caption = find(ui, "kitchen-caption")
    assert f"step 1 of {len(gen.tokens)}" in caption.value
    find(ui, "kitchen-next").click()
    assert f"step 2 of {len(gen.tokens)}" in caption.value
    find(ui, "kitchen-back").click()
    assert f"step 1 of {len(gen.tokens)}" in caption.value


def test_tools_off_and_on_fill_both_panes_with_their_verdicts():
    model = ScriptedModel(["It is 600,000.", CALL, "987 × 654 = 645,498."])
    ui = tools_off_on(model, [calculator])
    off, on = find(ui, "kitchen-pane-off"), find(ui, "kitchen-pane-on")
    assert "600,000" in off.children[1].value and "wrong" in off.children[2].value.lower()
    assert "→ calculator: 645498" in on.children[1].value and "right" in on.children[2].value.lower()


def test_schema_editor_counts_the_tokens_of_an_edited_description():
    ui = schema_editor(ScriptedModel([]), calculator)
    count = find(ui, "kitchen-token-count")
    assert "(+0 against" in count.value
    find(ui, "kitchen-description").value = "Adds."
    assert "(-" in count.value and "Adds." in ui.children[-1].value


@pytest.mark.parametrize("clicks, phase", [(1, "1 · generate"), (2, "2 · parse"), (3, "3 · run")])
def test_the_debugger_shows_one_phase_per_click(clicks, phase):
    harness = Harness(ScriptedModel([CALL, "645,498."]), [calculator])
    ui = harness_debugger(harness, [{"role": "user", "content": "987 × 654?"}])
    for _ in range(clicks):
        find(ui, "kitchen-next").click()
    assert phase in find(ui, "kitchen-debugger-status").value
