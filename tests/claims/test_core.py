"""The claims' machinery reads runs honestly: a run of an unexpected shape is a no, a verdict says
where its claim was measured when this run is elsewhere, and a shown verdict is also written down.

No live model: the runs come from the recordings of the chapters (data/recordings/). The claims of
one chapter read on recorded runs are tested in that chapter's file (test_ch03.py, ...).
"""

import json

import kitchen.claims.registry  # noqa: F401  (every chapter registers its claims; 01.calculator_right below)
from kitchen.claims import ch02, ch03
from kitchen.claims.core import show, verdict
from kitchen.model.load import load_model
from kitchen.settings import VERDICTS_VAR


def test_a_run_of_an_unexpected_shape_is_a_no_not_an_exception():
    model = load_model("0.5b", "replay", announce=False)
    v = verdict("01.calculator_right", {"nothing": "here"}, model)
    assert not v.holds and "could not be read" in v.why


def test_a_claim_on_a_setting_it_was_not_measured_on_says_so(replays):
    v = verdict("02.forced_start", {p: None for p in ch02.PREFIXES}, replays["0.5b"])
    assert not v.measured_here and v.line().endswith(
        "(measured on: pack in float32, int8-decode (avx2, avx512); this run: replay, float32)")


def test_a_shown_verdict_is_also_written_where_KITCHEN_VERDICTS_says(replays, tmp_path, monkeypatch, capsys):
    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv(VERDICTS_VAR, str(log))
    small = replays["0.5b"]
    shown = show("03.chain", ch03.chain_run(small), small)
    written = [json.loads(line) for line in log.read_text().splitlines()]
    assert written == [{"claim": "03.chain", "holds": shown.holds, "measured_here": shown.measured_here,
                        "setting": list(shown.setting), "line": shown.line()}]
    assert shown.line() in capsys.readouterr().out
