"""The MCP package's parts on their own: frames, views, failures, processes, the raw session and
the SDK check. No MCP server runs here; the processes are tiny Python scripts."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import anyio
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from kitchen.mcp import conventions, failures, frames, processes, raw_session, transports, views
from kitchen.mcp.__main__ import main as serve
from kitchen.mcp.frames import Frame, WireLog

# Answers every request with its method; says "hello" (a notification) before the first answer.
ECHO_SERVER = [sys.executable, "-c", (
    "import json, sys\n"
    "print(json.dumps({'jsonrpc': '2.0', 'method': 'hello'}), flush=True)\n"
    "for line in sys.stdin:\n"
    "    try:\n"
    "        m = json.loads(line)\n"
    "    except ValueError:\n"
    "        print('not json back', flush=True); continue\n"
    "    if 'id' in m:\n"
    "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'echo': m['method']}}), flush=True)\n")]
STUBBORN = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                  "print('ready', flush=True); time.sleep(60)"]
POLITE = [sys.executable, "-c", "import sys; sys.stdin.read()"]


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


# -- views ----------------------------------------------------------------------------------------

def test_the_conversation_uses_the_named_styles_and_colours():
    frames_ = [Frame("→", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.25, raw='{"id":1}', method="ping"),
               Frame("←", {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}}, 0.5, method="ping")]
    page = views.conversation(frames_, "the text", times=True)
    assert page.text == "the text" and repr(page) == "the text"
    assert page.html.startswith(f"<div style='{views.STYLES['page']}'><div style='{views.STYLES['head']}'>")
    assert "<span>2 frames</span>" in page.html and views.SERVER_LABEL in page.html
    assert f"background:{views.CLIENT_COLOUR}" in page.html and f"background:{views.ERROR_COLOUR}" in page.html
    assert "· client · 0.250 s" in page.html and page.html.count("exact line on the wire:") == 1
    assert " s</span>" not in views.conversation(frames_, "", times=False).html


def test_the_tool_table_says_who_sees_what():
    shown = views.tool_table([("calculator", False, ["expression"]), ("enable_weather", True, [])])
    assert [line.rstrip() for line in shown.text.splitlines()] == [
        "tool            model sees it?       parameters",
        "calculator      shown to the model   expression",
        "enable_weather  hidden (agent-only)  (none)"]
    assert "<table>" in shown.html


# -- failures -------------------------------------------------------------------------------------

def test_failures_are_classified_for_the_model():
    assert failures.classify(MCPError(code=types.REQUEST_TIMEOUT, message="late")) == "timeout"
    assert failures.classify(MCPError(code=types.INVALID_PARAMS, message="bad arguments")) == "refused"
    assert failures.classify(MCPError(code=types.CONNECTION_CLOSED, message="closed")) == "lost"
    assert failures.describe(ValueError("x")) == "ValueError: x"


def test_a_lost_connection_is_explained_with_the_process_s_last_words():
    open_link = SimpleNamespace(process=None, closed=SimpleNamespace(is_set=lambda: False), stderr=[])
    assert failures.lost_connection(TimeoutError(), open_link) is None  # the connection may go on
    assert failures.lost_connection(OSError("pipe"), open_link) == "the connection failed (OSError: pipe)"
    dead = SimpleNamespace(process=object(), returncode=3, closed=SimpleNamespace(is_set=lambda: True),
                           stderr=["starting", "Traceback: boom", "  "])
    assert failures.lost_connection(TimeoutError(), dead) == (
        "the MCP server process stopped (exit code 3); its last words: Traceback: boom")
    assert failures.stopped_reason(None) == "the connection to the MCP server closed"
    assert failures.connect_error("x", OSError("no"), dead).endswith("server stderr: starting; Traceback: boom;   ")


# -- processes ------------------------------------------------------------------------------------

def test_the_stop_plan_closes_then_terminates_then_kills():
    proc = SimpleNamespace(pid=1, terminate=lambda: None, kill=lambda: None)
    steps = processes.stop_steps(proc, 2.0, 1.0)
    assert [(action, grace) for action, grace in steps] == [(None, 2.0), (proc.terminate, 1.0), (proc.kill, 1.0)]


def test_a_polite_process_exits_when_its_stdin_closes():
    proc = subprocess.Popen(POLITE, stdin=subprocess.PIPE)
    t0 = time.monotonic()
    assert processes.stop_popen(proc) == 0 and time.monotonic() - t0 < 2


def test_a_stubborn_process_is_killed():
    proc = subprocess.Popen(STUBBORN, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"ready\n"  # SIGTERM is ignored from here on
    assert processes.stop_popen(proc, exit_grace=0.2, kill_grace=0.5) == -signal.SIGKILL
    proc.stdout.close()


def test_the_async_stop_follows_the_same_plan():
    async def main() -> tuple[int | None, int | None]:
        polite = await anyio.open_process(POLITE)
        stubborn = await anyio.open_process(STUBBORN)
        assert (await stubborn.stdout.receive()).startswith(b"ready")  # SIGTERM is ignored from here on
        return await processes.stop_process(polite), await processes.stop_process(stubborn)

    assert anyio.run(main) == (0, -signal.SIGKILL)


# -- the stdio transport -------------------------------------------------------------------------

def test_the_stdio_transport_logs_each_line_and_stops_the_process():
    wire = WireLog()

    async def main() -> tuple[list, transports.Link]:
        async with transports.open_stdio(ECHO_SERVER, wire) as link:
            request = types.jsonrpc_message_adapter.validate_python(
                {"jsonrpc": "2.0", "id": 1, "method": "ping"}, by_name=False)
            await link.write_stream.send(SessionMessage(request))
            got = [await link.read_stream.receive(), await link.read_stream.receive()]
            assert link.pid and not link.closed.is_set()
        return got, link

    got, link = anyio.run(main)
    assert sorted(type(m.message).__name__ for m in got) == ["JSONRPCNotification", "JSONRPCResponse"]
    assert link.closed.is_set() and link.returncode == 0  # stdin closed: the script ended on its own
    request = wire.filter("ping", direction="→").frames[0]
    assert request.raw == '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    assert [f.kind for f in wire.filter("ping")] == ["request", "response"]


def test_the_server_s_command_line_says_how_to_start_it(capsys):
    with pytest.raises(SystemExit) as stop:
        serve(["--help"])
    assert stop.value.code == 0
    assert "python -m kitchen.mcp" in capsys.readouterr().out


# -- the raw session ------------------------------------------------------------------------------

def test_a_raw_session_sends_lines_and_matches_answers():
    with raw_session.RawSession(ECHO_SERVER, timeout=5) as raw:
        assert raw.request("tools/list") == {"jsonrpc": "2.0", "id": 1, "result": {"echo": "tools/list"}}
        assert raw.receive() == {"jsonrpc": "2.0", "method": "hello"}  # kept aside while waiting
        raw.send("not json")
        assert raw.receive() == {"unparsed": "not json back"}
        raw.notify("notifications/initialized")
        with pytest.raises(TimeoutError):
            raw.receive(timeout=0.2)
        pid = raw.pid
        kinds = [(f.direction, f.kind) for f in raw.wire]
    # The greeting and the first request cross at the same moment, in either order.
    assert sorted(kinds) == sorted([("←", "notification"), ("→", "request"), ("←", "response"),
                                    ("→", "invalid"), ("←", "invalid"), ("→", "notification")])
    assert not raw.alive and raw.process.returncode == 0 and pid


def test_the_handshake_waits_for_a_slow_start_and_other_requests_do_not():
    slow = [ECHO_SERVER[0], "-c", "import time; time.sleep(1.5)\n" + ECHO_SERVER[2]]
    with raw_session.RawSession(slow, timeout=0.5, connect_timeout=10) as raw:
        assert raw.initialize()["result"] == {"echo": "initialize"}  # answered after 1.5 s, within 10
    with raw_session.RawSession(slow, timeout=0.5, connect_timeout=10) as raw:
        with pytest.raises(TimeoutError):
            raw.request("tools/list")  # not the handshake: 0.5 s


def test_a_closed_server_output_is_a_connection_error():
    raw = raw_session.RawSession([sys.executable, "-c", "import sys; sys.stderr.write('bye\\n')"], timeout=5)
    with pytest.raises(ConnectionError, match="closed its output"):
        raw.receive()
    assert raw.close() == 0 and list(raw.stderr) == ["bye"]


# -- the SDK check --------------------------------------------------------------------------------

def test_the_sdk_check_raises_a_clear_error_instead_of_asserting_at_import():
    conventions.check_sdk()  # the pinned SDK speaks the chapter's version
    with pytest.raises(RuntimeError, match="no longer speaks protocol version 2025-11-25"):
        conventions.check_sdk(["2024-11-05"])
