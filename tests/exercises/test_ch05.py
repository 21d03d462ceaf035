"""Chapter 05's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: a tools/call frame sent to the real server, the order of a session's opening.
"""

from __future__ import annotations

import kitchen.exercises.ch05 as ch05
from kitchen.mcp import WireLog

from notebook_exercises import check_ships_not_done_and_solved, exercises, notebook, run, stand_ins


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch05.check_tools_call_frame(...),
               ch05.check_session_order(...)]
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


def test_session_order():
    assert ch05.check_session_order(ch05.OPENING).right
    assert "a server answers nothing else" in ch05.check_session_order(["tools/list", "initialize"]).message
    late = ch05.check_session_order(["initialize", "tools/list", "notifications/initialized", "tools/call"])
    assert "says it is ready before anything else" in late.message
    blind = ch05.check_session_order(["initialize", "notifications/initialized", "tools/call", "tools/list"])
    assert "cannot call a tool it has not been told about" in blind.message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("05")


def test_the_chapter_05_frame_shows_in_the_wire_log():
    namespace = stand_ins("05")
    for shipped, solution in exercises(notebook("05"))[:1]:
        run(shipped, namespace)
        run(solution, namespace)
    assert [f.message for f in namespace["wire"] if f.method == "tools/call" and f.direction == "→"] == \
        [namespace["frame"]]
