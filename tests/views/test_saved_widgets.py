"""The notebooks' saved widget state, and the widget pictures drawn from it (no browser, no kernel).

A learner who opens a chapter before running it sees each widget restored from the notebook's
`metadata.widgets` (trusted) or its static picture (not trusted): both need every model a widget
view refers to in that state, and every widget output needs its picture.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kitchen.views.saved_widgets import (PICTURE_CLASS, STATE, VIEW, add_pictures, missing_models, picture,
                                     references, saved_models, view_outputs)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_widget_view_has_its_models_in_the_saved_state(path):
    nb = load(path)
    assert list(view_outputs(nb)), f"{path.name} holds no widget output"
    problems = missing_models(nb)
    assert not problems, f"{path.name}: " + "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_widget_output_carries_its_picture_drawn_from_the_saved_state(path):
    nb = load(path)
    stale = add_pictures(copy.deepcopy(nb))
    assert not stale, (f"{path.name}: {stale} widget output(s) without an up-to-date picture; "
                       f"run python scripts/add_widget_pictures.py {path.relative_to(ROOT)}")


def model(name: str, **state) -> dict:
    return {"model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
            "model_name": name, "state": state}


def notebook(models: dict, *roots: str) -> dict:
    """A notebook with one code cell showing the widgets `roots`, `models` its saved state."""
    outputs = [{"output_type": "display_data", "metadata": {},
                "data": {VIEW: {"version_major": 2, "version_minor": 0, "model_id": root}, "text/plain": "VBox()"}}
               for root in roots]
    return {"cells": [{"cell_type": "markdown", "source": "# A"},
                      {"cell_type": "code", "source": "ui", "outputs": outputs}],
            "metadata": {"widgets": {STATE: {"version_major": 2, "version_minor": 0, "state": models}}}}


MODELS = {
    "box": model("VBoxModel", children=["IPY_MODEL_run", "IPY_MODEL_out"], layout="IPY_MODEL_wide"),
    "run": model("ButtonModel", description="Run <now>", layout="IPY_MODEL_gone", style="IPY_MODEL_red"),
    "wide": model("LayoutModel", width="50%"),
    "gone": model("LayoutModel", display="none"),
    "red": model("ButtonStyleModel", button_color="red"),
    "out": model("OutputModel", outputs=[{"output_type": "display_data", "metadata": {},
                                          "data": {VIEW: {"model_id": "pick"}, "text/plain": "R"}}]),
    "pick": model("RadioButtonsModel", _options_labels=["yes", "no & maybe"], index=1, description="Pick"),
}


def test_references_follow_children_layouts_styles_and_widgets_inside_an_output():
    assert set(references(MODELS["box"]["state"])) == {"run", "out", "wide"}
    assert set(references(MODELS["run"]["state"])) == {"gone", "red"}
    assert list(references(MODELS["out"]["state"])) == ["pick"]


def test_a_complete_state_has_nothing_missing():
    assert missing_models(notebook(MODELS, "box")) == []


@pytest.mark.parametrize("removed, whose", [("box", "the output's own model"), ("red", "referred to by run"),
                                            ("pick", "referred to by out")])
def test_a_model_missing_at_any_depth_is_reported_with_its_cell(removed, whose):
    models = {k: v for k, v in MODELS.items() if k != removed}
    assert missing_models(notebook(models, "box")) == [
        f"cell #2: model {removed} ({whose}) is not in the saved state"]


def test_a_notebook_without_saved_state_misses_every_view():
    nb = notebook(MODELS, "box", "pick")
    del nb["metadata"]["widgets"]
    assert saved_models(nb) == {}
    assert [p.split(" (")[0] for p in missing_models(nb)] == ["cell #2: model box", "cell #2: model pick"]


def test_a_picture_draws_the_saved_widget_as_plain_html():
    drawn = picture(MODELS, "box")
    assert drawn.startswith(f'<div class="{PICTURE_CLASS}"') and "run the notebook to use it" in drawn
    assert "width:50%" in drawn
    assert "Run &lt;now&gt;" not in drawn  # its layout hides the button
    assert 'checked> no &amp; maybe' in drawn and "Pick" in drawn
    assert "<script" not in drawn and "children=" not in drawn


def test_pictures_are_added_once_and_redrawn_when_the_state_changes():
    nb = notebook(MODELS, "box")
    assert add_pictures(nb) == 1 and add_pictures(nb) == 0
    nb["metadata"]["widgets"][STATE]["state"]["pick"]["state"]["index"] = 0
    assert add_pictures(nb) == 1
    assert "checked> yes" in nb["cells"][1]["outputs"][0]["data"]["text/html"]


def test_an_html_output_that_is_not_a_picture_is_left_alone():
    nb = notebook(MODELS, "box")
    nb["cells"][1]["outputs"][0]["data"]["text/html"] = "<p>the widget's own</p>"
    assert add_pictures(nb) == 0
    assert nb["cells"][1]["outputs"][0]["data"]["text/html"] == "<p>the widget's own</p>"
