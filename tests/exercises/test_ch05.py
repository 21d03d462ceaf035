"""Chapter 05's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: a tools/call frame sent to the real server, whose error the model reads when a call fails.
"""

from __future__ import annotations

import kitchen.exercises.ch05 as ch05
from kitchen.mcp import WireLog

from notebook_exercises import check_ships_not_done_and_solved, exercises, notebook, run, stand_ins


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch05.check_tools_call_frame(...),
               ch05.check_error_kinds(...),
               ch05.check_error_kinds(dict.fromkeys(ch05.SITUATIONS, ...))]
    assert all(f.status == "not done" for f in shipped)


FRAME = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
         "params": {"name": "calculator", "arguments": {"expression": "12 * 34"}}}


def test_tools_call_frame_is_sent_to_the_real_server():
    wire = WireLog()
    feedback = ch05.check_tools_call_frame(FRAME, wire=wire)
    assert feedback.right and '"text": "408"' in feedback.message
    sent = [f.message for f in wire if f.direction == "→" and f.method == "tools/call"]
    assert sent == [FRAME]
    typo = ch05.check_tools_call_frame({**FRAME, "params": {"name": "calculator", "arguments": {"expr": "12 * 34"}}})
    assert typo.status == "wrong" and "the tool ran and reported an error" in typo.message
    unknown = ch05.check_tools_call_frame({**FRAME, "params": {"name": "calc", "arguments": {}}})
    assert "protocol error" in unknown.message and "-32602" in unknown.message


def test_tools_call_frame_rejected_before_sending():
    assert "a notification" in ch05.check_tools_call_frame({k: v for k, v in FRAME.items() if k != "id"}).message
    assert "this is not JSON" in ch05.check_tools_call_frame("{'jsonrpc': '2.0'}").message
    assert "-32601" in ch05.check_tools_call_frame({**FRAME, "method": "tools/run"}).message


KINDS = {"too big": "tool_error", "not listed": "unknown_tool", "JSON-RPC error": "server_error",
         "no answer": "timeout", "server died": "server_error"}


def test_error_kinds_come_from_the_mcp_client():
    assert ch05.error_kinds() == KINDS
    assert set(KINDS.values()) <= set(ch05.KINDS)


def test_error_kinds():
    right = ch05.check_error_kinds(KINDS)
    assert right.right and "tool_error and unknown_tool are the model's to fix" in right.message
    assert "server_error and timeout come from the server's side" in right.message


def test_error_kinds_says_each_wrong_situation():
    blamed = ch05.check_error_kinds({**KINDS, "too big": "server_error", "server died": "timeout"})
    assert blamed.status == "wrong" and blamed.message.startswith("3 of 5 right.")
    assert "too big (the model asks the calculator for 10 ** 10 ** 10): not 'server_error'" in blamed.message
    assert "server died (the model calls the calculator after the server process has stopped): not 'timeout'" \
        in blamed.message
    assert blamed.hint == ch05.LOOK["too big"]
    for situation, kind in [("not listed", "hidden_tool"), ("JSON-RPC error", "tool_error"),
                            ("no answer", "server_error"), ("server died", "unknown_tool")]:
        feedback = ch05.check_error_kinds({**KINDS, situation: kind})
        assert feedback.message == f"4 of 5 right.\n  {situation} ({ch05.SITUATIONS[situation]}): not {kind!r}"
        assert feedback.hint == ch05.LOOK[situation]


def test_no_hint_names_the_right_kind():
    for situation, hint in ch05.LOOK.items():
        assert KINDS[situation] not in hint, situation


def test_error_kinds_rejects_bad_types():
    for bad in ["tool_error", list(KINDS.values()), {"too big": "tool_error"}, {**KINDS, "too big": "too_big"},
                {**KINDS, "no answer": 408}, {**KINDS, "extra": "timeout"}]:
        feedback = ch05.check_error_kinds(bad)
        assert feedback.status == "wrong" and "give a dict with the keys" in feedback.message, bad


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("05")


def test_the_chapter_05_frame_shows_in_the_wire_log():
    namespace = stand_ins("05")
    for shipped, solution in exercises(notebook("05"))[:1]:
        run(shipped, namespace)
        run(solution, namespace)
    assert [f.message for f in namespace["wire"] if f.method == "tools/call" and f.direction == "→"] == \
        [namespace["frame"]]
