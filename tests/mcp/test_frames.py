"""The wire log on its own: frames recorded by hand, no server (`kitchen.mcp.frames`)."""

from __future__ import annotations

import json

import pytest

from kitchen.mcp import frames
from kitchen.mcp.frames import Frame, WireLog


# -- frames ---------------------------------------------------------------------------------------

def test_a_frame_knows_its_kind_sender_and_error_flag():
    error_result = Frame(frames.TO_CLIENT, {"jsonrpc": "2.0", "id": 3, "result": {"isError": True}}, 0.0)
    assert (error_result.kind, error_result.sender, error_result.is_error_result) == ("response", "server", True)
    plain = Frame(frames.TO_SERVER, {"jsonrpc": "2.0", "method": "x"}, 0.0)
    assert (plain.kind, plain.sender, plain.is_error_result) == ("notification", "client", False)
    assert Frame(frames.TO_SERVER, {}, 0.0, raw="oops").kind == "invalid"


def test_summaries_are_cut_to_one_short_line():
    long_call = Frame("→", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                            "params": {"name": "f", "arguments": {"text": "word " * 50}}}, 0.0, method="tools/call")
    summary = frames.summarize(long_call)
    assert summary.startswith('f({"text": "word word') and summary.endswith("…)")
    assert len(summary) == len("f()") + 70  # the arguments cut to 70 characters
    assert frames._short("a\n  b") == "a b"
    cancelled = Frame("→", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": 4, "reason": "late"}}, 0.0, method="notifications/cancelled")
    assert cancelled.summary() == "cancel request #4: late"


def test_json_object_accepts_objects_only():
    assert frames.json_object('{"a": 1}') == {"a": 1}
    assert frames.json_object("[1, 2]") is None and frames.json_object("{") is None


def test_a_log_answers_requests_in_both_directions_and_tells_listeners():
    log, seen = WireLog(), []
    log.subscribe(seen.append)
    log.record("→", {"jsonrpc": "2.0", "id": "a", "method": "tools/list"})
    log.record("←", {"jsonrpc": "2.0", "id": "a", "result": {"tools": []}})
    assert [f.method for f in seen] == ["tools/list", "tools/list"]
    log.clear()
    assert len(log) == 0 and len(seen) == 2


# -- a whole conversation -------------------------------------------------------------------------

def conversation() -> WireLog:
    log = WireLog()
    log.record("→", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "me", "version": "1"}}})
    log.record("←", {"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": {"name": "llm-kitchen-tools", "version": "0.1.0"}}})
    log.record("→", {"jsonrpc": "2.0", "method": "notifications/initialized"})
    log.record("→", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    log.record("←", {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "calculator"}, {"name": "my_notes"}]}})
    log.record("→", {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "my_notes", "arguments": {"query": "<b>"},
                                "_meta": {"llm-kitchen/user_id": "ada"}}})
    log.record("←", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    log.record("←", {"jsonrpc": "2.0", "id": 3, "result": {
        "content": [{"type": "text", "text": "nothing"}], "isError": True}})
    log.record("←", {"jsonrpc": "2.0", "id": 7, "method": "ping"})  # the server asks too
    log.record("→", {"jsonrpc": "2.0", "id": 7, "result": {}})
    log.record("→", {"jsonrpc": "2.0", "id": 4, "method": "nope"})
    log.record("←", {"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found", "data": "nope"}})
    log.record("→", None, raw="not json at all")
    return log


def test_each_frame_knows_its_kind_and_method():
    log = conversation()
    assert [(f.direction, f.kind, f.id, f.method) for f in log] == [
        ("→", "request", 1, "initialize"), ("←", "response", 1, "initialize"),
        ("→", "notification", None, "notifications/initialized"),
        ("→", "request", 2, "tools/list"), ("←", "response", 2, "tools/list"),
        ("→", "request", 3, "tools/call"),
        ("←", "notification", None, "notifications/tools/list_changed"),
        ("←", "response", 3, "tools/call"),
        ("←", "request", 7, "ping"), ("→", "response", 7, "ping"),
        ("→", "request", 4, "nope"), ("←", "error", 4, "nope"),
        ("→", "invalid", None, None)]
    times = [f.time for f in log]
    assert times == sorted(times)


def test_the_same_id_in_the_other_direction_is_another_request():
    log = WireLog()
    log.record("→", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    log.record("←", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    log.record("→", {"jsonrpc": "2.0", "id": 1, "result": {}})
    log.record("←", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    assert [f.method for f in log] == ["tools/list", "ping", "ping", "tools/list"]


def test_summaries_say_what_matters():
    summaries = [f.summary() for f in conversation()]
    assert summaries[0] == "protocolVersion 2025-11-25, client me 1"
    assert summaries[1] == ("protocolVersion 2025-11-25, server llm-kitchen-tools 0.1.0, "
                            "capabilities: tools(listChanged)")
    assert summaries[4] == "2 tools: calculator, my_notes"
    assert summaries[5] == 'my_notes({"query": "<b>"})  _meta {"llm-kitchen/user_id": "ada"}'
    assert summaries[6] == "the server's tool list changed"
    assert summaries[7] == "isError nothing"
    assert summaries[11] == "error -32601: Method not found (nope)"
    assert summaries[12] == "not JSON-RPC: not json at all"


def test_filter_by_method_prefix_direction_and_kind():
    log = conversation()
    assert [f.kind for f in log.filter("tools/call")] == ["request", "response"]
    assert [f.method for f in log.filter("notifications/")] == ["notifications/initialized",
                                                                 "notifications/tools/list_changed"]
    assert [f.id for f in log.filter(["tools/list", "nope"], direction="←")] == [2, 4]
    assert len(log.filter(kind="error")) == 1
    assert isinstance(log.filter("ping"), WireLog)
    assert log.methods() == ["initialize", "notifications/initialized", "tools/list", "tools/call",
                             "notifications/tools/list_changed", "ping", "nope"]


def test_text_and_html_views():
    log = conversation()
    text = repr(log)
    assert text.splitlines()[0] == "13 frames (→ client to server, ← server to client)"
    assert "→ request #3 tools/call" in text and "← error #4 nope" in text
    page = log._repr_html_()
    assert page.count("<details>") == 13
    assert "&lt;b&gt;" in page and "<b>\"" not in page  # frame text is escaped
    assert "flex-start" in page and "flex-end" in page  # client left, server right
    assert log.view(last=2).text.splitlines()[0].startswith("2 frames")


def test_raw_lines_are_kept_and_shown():
    log = WireLog()
    line = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    frame = log.record("→", json.loads(line), raw=line)
    assert frame.raw == line and "exact line on the wire" in log.view().html


def test_listeners_see_every_frame_in_order():
    log, seen = WireLog(), []
    log.subscribe(lambda f: seen.append(f.method))
    conversation_frames = conversation().frames
    for f in conversation_frames:
        log.record(f.direction, f.message or None, raw=f.raw)
    assert seen == [f.method for f in conversation_frames]


def test_a_direction_must_be_an_arrow():
    with pytest.raises(ValueError):
        WireLog().record("->", {"jsonrpc": "2.0", "method": "x"})


def test_frames_are_plain_values():
    frame = Frame("→", {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, 0.5, method="tools/list")
    assert frame.headline() == "→ request #9 tools/list"
    assert frame.sender == "client" and '"id": 9' in frame.pretty()


def test_odd_frames_still_get_a_summary():
    log = WireLog()
    log.record("→", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": "me"}})
    log.record("←", {"jsonrpc": "2.0", "id": 1, "result": ["not", "an", "object"]})
    log.record("←", {"jsonrpc": "2.0", "id": 2, "error": "broken"})
    assert [bool(f.summary()) for f in log] == [True, True, True]


def test_views_without_times_are_the_same_on_every_run():
    first, second = conversation(), conversation()
    assert first.text(times=False) == second.text(times=False)
    assert first.view(times=False).html == second.view(times=False).html
    assert " s<" not in first.view(times=False).html
