"""Results files of the experiment scripts: labelled with the model, saved and read back whole."""

import datetime

from kitchen.chapters.experiments import labelled, load_results, save_results
from kitchen.model.scripted import ScriptedModel


def test_results_are_labelled_with_the_model_and_survive_a_round_trip(tmp_path):
    path = tmp_path / "results.json"
    assert load_results(path) == {}
    model = ScriptedModel(["4."])
    entry = labelled(model, "scripts/x.py", rows=[{"right": True}])
    assert entry["model"]["model_name"] == "scripted replies" and entry["announcement"] == model.describe()
    assert entry["date"] == datetime.date.today().isoformat() and entry["rows"] == [{"right": True}]
    save_results(path, {"0.5b": entry})
    assert load_results(path) == {"0.5b": entry}
    assert path.read_text().endswith("\n")
