"""The claims' verdicts read runs honestly: a recorded run that shows the opposite gives the opposite verdict.

No live model: the runs come from the recordings of the chapters (data/recordings/), where the
other tier did the opposite of what the claim says of its own tier.
"""

import pytest

from kitchen.model.load import load_model
from kitchen.claims import CLAIMS, verdict
from kitchen.claims import ch02, ch03, ch04


@pytest.fixture(scope="module")
def replays():
    return {tier: load_model(tier, "replay", announce=False) for tier in ("0.5b", "1.5b")}


def test_there_are_at_least_fifteen_claims_across_seven_chapters():
    assert len(CLAIMS) >= 15
    assert {c.chapter for c in CLAIMS.values()} == {"01", "02", "03", "04", "05", "06", "07"}


def test_the_form_not_choice_claim_says_no_to_a_call_of_the_right_tool():
    from kitchen.harness.loop import run_harness
    from kitchen.model.scripted import ScriptedModel
    from kitchen.tools import TOY_TOOLS

    right = '<tool_call>\n{"name": "browse_files", "arguments": {"path": "notes"}}\n</tool_call>'
    wrong = right.replace('browse_files", "arguments": {"path": "notes"', 'fetch_page", "arguments": {"url": "x"')
    model = ScriptedModel([right, wrong])
    runs = [run_harness(model, "Which files are in the notes folder?", TOY_TOOLS, max_steps=1) for _ in "ab"]
    assert [verdict("07.form_not_choice", r, model).holds for r in runs] == [False, True]


def test_the_chain_claim_holds_on_the_1_5b_run_and_not_on_the_0_5b_run(replays):
    big, small = (verdict("03.chain", ch03.chain_run(replays[t]), replays[t]) for t in ("1.5b", "0.5b"))
    assert big.holds and not small.holds
    assert "NO" in small.line() and "yes" in big.line()


def test_the_prompt_format_claim_holds_on_the_1_5b_run_and_not_on_the_0_5b_run(replays):
    big, small = (verdict("04.prompt_format_works", ch04.fenced_format(replays[t]), replays[t])
                  for t in ("1.5b", "0.5b"))
    assert big.holds and not small.holds


def test_the_toolformer_claim_reads_the_scores_it_is_given():
    right = {"question alone": [("7", -13.0)], "question + tool listed": [("7", -12.0)],
             "call without its result": [("7", -12.0)], "call + result": [("7", -0.1)]}
    swapped = dict(right, **{"call + result": [("7", -12.5)]})
    model = load_model("0.5b", "replay", announce=False)
    assert verdict("02.toolformer", right, model).holds
    assert not verdict("02.toolformer", swapped, model).holds


def test_a_run_of_an_unexpected_shape_is_a_no_not_an_exception():
    model = load_model("0.5b", "replay", announce=False)
    v = verdict("01.calculator_right", {"nothing": "here"}, model)
    assert not v.holds and "could not be read" in v.why


def test_a_claim_on_a_setting_it_was_not_measured_on_says_so(replays):
    v = verdict("02.forced_start", {p: None for p in ch02.PREFIXES}, replays["0.5b"])
    assert not v.measured_here and "this claim was measured on" in v.line()


def test_the_one_call_claim_says_no_to_a_reply_with_two_calls():
    from kitchen.model.scripted import ScriptedModel

    call = '<tool_call>\n{{"name": "calculator", "arguments": {{"expression": "{}"}}}}\n</tool_call>'
    one, two = call.format("12 * 34"), call.format("12 * 34") + "\n" + call.format("56 * 78")
    runs = [ch03.two_products_run(ScriptedModel([reply, "Done."])) for reply in (one, two)]
    assert [len(r.results) for r in runs] == [1, 2]
    assert [verdict("03.one_call_small", r, ScriptedModel([])).holds for r in runs] == [True, False]


def test_a_shown_verdict_is_also_written_where_KITCHEN_VERDICTS_says(replays, tmp_path, monkeypatch, capsys):
    import json

    from kitchen.claims import show
    from kitchen.settings import VERDICTS_VAR

    log = tmp_path / "verdicts.jsonl"
    monkeypatch.setenv(VERDICTS_VAR, str(log))
    small = replays["0.5b"]
    shown = show("03.chain", ch03.chain_run(small), small)
    written = [json.loads(line) for line in log.read_text().splitlines()]
    assert written == [{"claim": "03.chain", "holds": shown.holds, "measured_here": shown.measured_here,
                        "setting": list(shown.setting), "line": shown.line()}]
    assert shown.line() in capsys.readouterr().out
