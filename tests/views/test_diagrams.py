"""Diagrams drawn from runs: the harness loop of a trace and the MCP exchange of a wire log."""

from __future__ import annotations

from kitchen.views.diagrams import MIME, label, loop_diagram, session_diagram
from kitchen.harness.loop import run_harness
from kitchen.mcp import MCPToolbox, WireLog
from kitchen.mcp.frames import TO_CLIENT, TO_SERVER
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator

CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "12 * 34"}}\n</tool_call>'
UNKNOWN = '<tool_call>\n{"name": "calc", "arguments": {"expression": "2"}}\n</tool_call>'
BROKEN = '<tool_call>\n{"name": "calculator", "arguments": {"expression": 2 + 2}}\n</tool_call>'


def test_loop_diagram_follows_each_step_of_the_trace():
    trace = run_harness(ScriptedModel([CALL, UNKNOWN, BROKEN, "It is 408."]), "What is 12 × 34?", [calculator])
    source = str(loop_diagram(trace))
    lines = source.splitlines()
    assert lines[0] == "sequenceDiagram"
    steps = [line for line in lines if "H->>M: step" in line]
    assert [s.split(":")[1].strip() for s in steps] == ["step 1", "step 2", "step 3", "step 4"]
    assert f"prompt {len(trace.steps[0].generation.prompt_ids)} tokens" in steps[0]
    assert "    H->>T: calculator(expression=12 * 34)" in lines and "    T-->>H: 408" in lines
    assert "    T-->>H: error (unknown_tool)" in lines
    assert any("unreadable call (malformed_json), error fed back" in line for line in lines)
    assert lines[-1] == "    Note over H,M: answer after 4 model call(s)"


def test_loop_diagram_of_a_capped_run():
    trace = run_harness(ScriptedModel([CALL] * 5), "What is 12 × 34?", [calculator], max_steps=2)
    assert str(loop_diagram(trace)).endswith("stopped by the cap after 2 model calls")


def test_session_diagram_of_a_real_session():
    wire = WireLog()
    with MCPToolbox(context={"user_id": "ada"}, wire=wire) as box:
        box.call("calculator", {"expression": "12 * 34"})
        box.call_as_application("enable_weather")
    lines = str(session_diagram(wire)).splitlines()
    assert lines[3:6] == ["    C->>S: initialize (id 1)", lines[4], "    C-)S: notifications/initialized"]
    assert lines[4].startswith("    S-->>C: result of initialize (id 1): version ")
    assert "    C->>S: tools/call calculator (id 3)" in lines
    assert "    S-->>C: result of tools/call (id 3): 408" in lines
    assert "    S-)C: notifications/tools/list_changed" in lines


def test_session_diagram_shows_errors_and_lines_that_are_not_json_rpc():
    wire = WireLog()
    wire.record(TO_SERVER, {"jsonrpc": "2.0", "id": 9, "method": "tools/calls"})
    wire.record(TO_CLIENT, {"jsonrpc": "2.0", "id": 9, "error": {"code": -32601, "message": "Method not found"}})
    wire.record(TO_SERVER, None, raw="hello; <b>")
    lines = str(session_diagram(wire)).splitlines()
    assert "    S--xC: error -32601 (id 9): Method not found" in lines
    assert lines[-1] == "    Note over C,S: a line that is not JSON-RPC: hello, ‹b›"


def test_labels_cannot_break_the_diagram():
    text = label('a;b#c<d>e: "f" {g}\nh' + "x" * 100)
    assert not set(text) & set(';#<>:"{}\n') and len(text) == 60 and text.endswith("…")


def test_a_diagram_displays_as_mermaid():
    bundle = session_diagram(WireLog())._repr_mimebundle_()
    assert set(bundle) == {MIME, "text/plain"} and bundle[MIME].startswith("sequenceDiagram")
