"""Chapter 05's MCP server and the harness's client adapter, over a real stdio subprocess.

Server processes are shared where a test leaves no trace (module fixtures), and started afresh
where a test changes the server (the weather switch) or ends it (crash, kill, close). Each start
costs a few seconds of imports, so there are few.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import mcp.types as types
import pytest

from kitchen.harness.loop import run_harness
from kitchen.model.server.ports import free_port, wait_for_port
from kitchen.mcp import (AGENT_ONLY_TOOLS, PROTOCOL_VERSION, ConfirmDestructive, MCPConnectionError, MCPToolbox,
                         RawSession, output_schema, result_text, server_command)
from kitchen.mcp.client import to_tool_result
from kitchen.mcp.server import KitchenServer
from kitchen.tools import count_words
from kitchen.mcp.more_tools import crash, my_notes, stall
from kitchen.tools.schemas import from_mcp, to_mcp, tool_schema
from kitchen.model.scripted import ScriptedModel
from kitchen.harness.toolbox import LocalToolbox
from kitchen.tools import TOY_TOOLS

TIMEOUT = 1.5  # seconds per request for the shared toolbox, so the stalled call ends quickly
TOY_NAMES = [fn.__name__ for fn in TOY_TOOLS]


# -- processes, threads, ports --------------------------------------------------------------------
def running(pid: int) -> bool:
    """True while `pid` is a live process (a zombie that nobody reaped counts as live: it leaked)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone_within(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def server_children() -> list[int]:
    """Our own child processes that run `kitchen.mcp`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and "kitchen.mcp" in cmdline:
            found.append(int(entry.name))
    return found


def portal_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "MCPToolbox event loop" and t.is_alive()]


def wait_until(predicate, seconds: float = 2.0):
    deadline = time.monotonic() + seconds
    while not (value := predicate()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value


def tagged(name, **arguments):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


@pytest.fixture(scope="module", autouse=True)
def no_leftover_servers():
    yield
    deadline = time.monotonic() + 5
    while server_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server_children() == [], "an MCP server process outlived its test"
    assert portal_threads() == [], "an MCPToolbox event-loop thread outlived its test"


@pytest.fixture(scope="module")
def box():
    """A server with the fault switches; the application's session has Ada signed in."""
    with MCPToolbox(faults=True, context={"user_id": "ada"}, timeout=TIMEOUT) as toolbox:
        yield toolbox
    assert gone_within(toolbox.pid)


@pytest.fixture(scope="module")
def raw():
    """The same server spoken to by hand; yields the session and the answer to `initialize`."""
    with RawSession(faults=True) as session:
        answer = session.initialize()
        yield session, answer
    assert gone_within(session.pid)


@pytest.fixture
def restore(box):
    """Put the shared toolbox's session and policy back after a test changes them."""
    context, policy = dict(box.context), box.injected_policy
    yield box
    box.context, box.injected_policy = context, policy


def last_frame(toolbox, method, kind):
    return toolbox.wire.filter(method, kind=kind).frames[-1]


# -- the handshake ------------------------------------------------------------------------------

def test_the_handshake_pins_the_protocol_version(box):
    assert PROTOCOL_VERSION == "2025-11-25"
    assert box.protocol_version == PROTOCOL_VERSION
    assert box.server_info == {"name": "llm-kitchen-tools", "version": "0.1.0"}
    assert box.capabilities == {"tools": {"listChanged": True}}
    first = box.wire.frames[:4]
    assert [(f.direction, f.kind, f.method) for f in first] == [
        ("→", "request", "initialize"), ("←", "response", "initialize"),
        ("→", "notification", "notifications/initialized"), ("→", "request", "tools/list")]
    assert first[0].message["params"]["protocolVersion"] == PROTOCOL_VERSION
    assert first[1].message["result"]["protocolVersion"] == PROTOCOL_VERSION
    assert json.loads(first[0].raw) == first[0].message  # the exact line on the pipe


def test_the_handshake_by_hand(raw):
    session, answer = raw
    assert answer["jsonrpc"] == "2.0" and answer["id"] == 1
    result = answer["result"]
    assert result["protocolVersion"] == PROTOCOL_VERSION
    assert result["serverInfo"]["name"] == "llm-kitchen-tools"
    assert result["capabilities"]["tools"] == {"listChanged": True}


# -- tools/list ---------------------------------------------------------------------------------

def expected_listing(faults: bool) -> list[dict]:
    kitchen = KitchenServer()  # only for its bound methods save_memory and enable_weather
    functions = [*TOY_TOOLS, my_notes, kitchen.save_memory, kitchen.enable_weather]
    functions += [stall, crash] if faults else []
    return [to_mcp(tool_schema(fn)) for fn in functions]


def test_the_list_holds_our_schemas_exactly(box, raw):
    expected = expected_listing(faults=True)
    assert box.tools == expected  # what the SDK client parsed
    session, _ = raw
    answer = session.request("tools/list")
    assert answer["result"]["tools"] == expected  # what crossed the wire
    assert [t["name"] for t in expected][:5] == TOY_NAMES


def test_the_list_never_mentions_the_user_id(box):
    listing = last_frame(box, "tools/list", "response")
    assert "user_id" not in listing.raw
    notes = next(t for t in box.tools if t["name"] == "my_notes")
    assert notes["inputSchema"] == {"type": "object", "required": ["query"],
                                    "properties": {"query": notes["inputSchema"]["properties"]["query"]}}


def test_schemas_are_the_chat_template_view_without_hidden_tools(box):
    schemas = box.schemas()
    names = [s["function"]["name"] for s in schemas]
    assert names == [*TOY_NAMES, "my_notes", "stall", "crash"]
    assert not set(AGENT_ONLY_TOOLS) & set(names)
    assert schemas[:5] == [tool_schema(fn) for fn in TOY_TOOLS]
    assert schemas == [from_mcp(t) for t in box.tools if t["name"] not in AGENT_ONLY_TOOLS]


# -- tools/call ---------------------------------------------------------------------------------

def test_a_call_turns_the_content_list_into_a_tool_result(box):
    result = box.call("calculator", {"expression": "1234 * 5678"})
    assert (result.ok, result.content, result.error_kind) == (True, "7006652", None)
    request = last_frame(box, "tools/call", "request").message["params"]
    assert request["name"] == "calculator" and request["arguments"] == {"expression": "1234 * 5678"}
    answer = last_frame(box, "tools/call", "response").message["result"]
    assert answer["content"] == [{"type": "text", "text": "7006652"}] and answer["isError"] is False


def test_result_text_joins_text_parts_and_names_the_rest():
    content = [{"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png", "data": "AA=="},
               {"type": "text", "text": "b"}]
    assert result_text(content) == "a\n[image/png content, not shown to the model]\nb"
    assert result_text([]) == ""


@pytest.mark.parametrize("name, arguments", [
    ("calculator", {"expression": "2 ** 10"}),
    ("calculator", {"expression": "1/0"}),                   # the tool refuses: tool_error
    ("calculator", {"expr": "1+1"}),                         # wrong name: invalid_arguments
    ("calculator", {"expression": 5}),                       # wrong type: invalid_arguments
    ("calculator", {"expression": "1", "extra": True}),      # unknown argument: invalid_arguments
    ("search_rhymes", {"query": "sheep", "limit": 1}),
    ("count_words", {"rhyme_title": "Humpty Dumpty"}),
    ("fetch_page", {"url": "nowhere.example"}),
    ("browse_files", {"path": "../secrets"}),
])
def test_results_read_the_same_as_with_the_local_toolbox(box, name, arguments):
    over_mcp = box.call(name, arguments)
    local = LocalToolbox(TOY_TOOLS).call(name, arguments)
    assert (over_mcp.ok, over_mcp.error_kind, over_mcp.content) == (local.ok, local.error_kind, local.content)


def test_bad_arguments_are_an_error_result_on_the_wire(box):
    result = box.call("calculator", {"expression": 12})
    assert not result.ok and result.error_kind == "invalid_arguments"
    assert "12 is not of type 'string'" in result.content
    answer = last_frame(box, "tools/call", "response").message
    assert "error" not in answer and answer["result"]["isError"] is True
    assert answer["result"]["_meta"] == {"llm-kitchen/error_kind": "invalid_arguments"}


# -- JSON-RPC errors, by hand --------------------------------------------------------------------

def test_an_unknown_method_is_32601(raw):
    session, _ = raw
    answer = session.request("tools/frobnicate", {})
    assert answer["error"]["code"] == -32601 and answer["error"]["message"] == "Method not found"


@pytest.mark.parametrize("params", [{"arguments": {"expression": "1"}},          # no tool name
                                    {"name": "calculator", "arguments": "1+1"},    # arguments not an object
                                    {"name": 7}])
def test_invalid_params_are_32602(raw, params):
    session, _ = raw
    answer = session.request("tools/call", params)
    assert answer["error"]["code"] == -32602


def test_an_unknown_tool_is_32602_naming_the_known_ones(raw):
    session, _ = raw
    answer = session.request("tools/call", {"name": "teleport", "arguments": {}})
    assert answer["error"]["code"] == -32602
    assert "Unknown tool: teleport" in answer["error"]["message"] and "calculator" in answer["error"]["message"]


def test_a_line_that_is_not_json_gets_no_answer_and_breaks_nothing(raw):
    session, _ = raw
    session.send("this is not JSON")
    with pytest.raises(TimeoutError):
        session.receive(timeout=0.3)
    assert session.request("ping")["result"] == {}


# -- security: hidden tools and the injected user -------------------------------------------------

def test_a_hidden_tool_is_refused_without_contacting_the_server(box):
    before = len(box.wire)
    result = box.call("save_memory", {"note": "the user likes pancakes"})
    assert not result.ok and result.error_kind == "hidden_tool"
    assert "calculator" in result.content and "enable_weather" not in result.content
    assert len(box.wire) == before
    mine = box.call_as_application("save_memory", {"note": "the user likes pancakes"})
    assert mine.ok and mine.content.startswith("Saved to memory")


def test_an_unknown_tool_is_refused_with_the_known_ones(box):
    before = len(box.wire)
    result = box.call("teleport", {"to": "Mars"})
    assert not result.ok and result.error_kind == "unknown_tool"
    assert "calculator" in result.content and "save_memory" not in result.content
    assert len(box.wire) == before


def test_the_user_id_comes_from_the_session(restore):
    box = restore
    ada = box.call("my_notes", {"query": "*"})
    assert ada.ok and "Dentist" in ada.content and "Surprise party" not in ada.content
    params = last_frame(box, "tools/call", "request").message["params"]
    assert params["arguments"] == {"query": "*"}
    assert params["_meta"]["llm-kitchen/user_id"] == "ada"
    box.context = {"user_id": "bob"}  # another user signs in
    assert "Surprise party" in box.call("my_notes", {"query": "party"}).content


def test_a_user_id_written_by_the_model_is_rejected(restore):
    box = restore
    before = len(box.wire)
    result = box.call("my_notes", {"query": "party", "user_id": "bob"})
    assert not result.ok and result.error_kind == "injected_argument"
    assert "set by the application" in result.content and len(box.wire) == before


def test_a_user_id_written_by_the_model_is_ignored(restore):
    box = restore
    box.injected_policy = "ignore"
    result = box.call("my_notes", {"query": "party", "user_id": "bob"})
    assert result.ok and "Surprise" not in result.content  # still Ada's notes
    assert result.notes and "dropped user_id='bob'" in result.notes[0]
    assert last_frame(box, "tools/call", "request").message["params"]["arguments"] == {"query": "party"}


def test_the_server_itself_never_takes_the_user_from_the_arguments(raw):
    session, _ = raw

    def call(arguments, meta=None):
        params = {"name": "my_notes", "arguments": arguments, **({"_meta": meta} if meta else {})}
        return session.request("tools/call", params)["result"]

    forged = call({"query": "party", "user_id": "bob"}, {"llm-kitchen/user_id": "ada"})
    assert forged["isError"] and forged["_meta"]["llm-kitchen/error_kind"] == "injected_argument"
    nobody = call({"query": "party"})
    assert nobody["isError"] and nobody["_meta"]["llm-kitchen/error_kind"] == "missing_context"
    bob = call({"query": "party"}, {"llm-kitchen/user_id": "bob"})
    assert not bob["isError"] and "Surprise party" in bob["content"][0]["text"]


# -- faults: a stalled call, a dead server ---------------------------------------------------------

def test_a_stalled_call_times_out_and_the_session_goes_on(box):
    t0 = time.monotonic()
    result = box.call("stall", {})
    elapsed = time.monotonic() - t0
    assert not result.ok and result.error_kind == "timeout"
    assert f"within {TIMEOUT:g} s" in result.content
    assert TIMEOUT - 0.1 < elapsed < TIMEOUT + 3
    # The SDK's courtesy cancel goes out as the wait ends; its frame lands a moment later.
    assert wait_until(lambda: box.wire.filter("notifications/cancelled", direction="→").frames)
    assert box.alive and box.call("calculator", {"expression": "6*7"}).content == "42"


@pytest.mark.parametrize("how", ["crash tool", "killed during a stalled call"])
def test_a_dead_server_becomes_an_error_result_and_later_calls_fail_fast(how):
    with MCPToolbox(faults=True, timeout=30) as box:
        pid = box.pid
        t0 = time.monotonic()
        if how == "crash tool":
            result = box.call("crash", {})
        else:
            threading.Timer(0.5, os.kill, (pid, signal.SIGKILL)).start()
            result = box.call("stall", {})
        elapsed = time.monotonic() - t0
        assert not result.ok and result.error_kind == "server_error"
        assert elapsed < 5, "the failure must show up at once, not at the 30 s timeout"
        assert "stopped (exit code" in result.content
        assert not box.alive and not running(pid)
        t0 = time.monotonic()
        later = box.call("calculator", {"expression": "1+1"})
        assert later.error_kind == "server_error" and "stopped" in later.content
        assert time.monotonic() - t0 < 0.5
        assert "calculator" in box.names()  # the cached list still answers, without a hang
    assert gone_within(pid)


# -- a tool added mid-session ---------------------------------------------------------------------

def test_a_tool_added_mid_conversation_reaches_the_model():
    # Ada asks for a sum; while the first result goes back, the application switches the weather
    # tool on. The server announces the change, the toolbox lists again, and the next prompt's
    # <tools> block offers get_weather.
    model = ScriptedModel([tagged("calculator", expression="6 * 7"),
                           tagged("get_weather", location="Little Puddleton"),
                           "42, and take an umbrella."])
    with MCPToolbox(context={"user_id": "ada"}) as box:
        assert "get_weather" not in box.names()
        assert box.call("get_weather", {"location": "Little Puddleton"}).error_kind == "unknown_tool"

        def switch_on(event):
            if event.kind == "result" and event.step == 1:
                assert box.call_as_application("enable_weather").ok

        trace = run_harness(model, "What is 6 × 7, and do I need an umbrella?", box, on_event=switch_on)
        assert trace.stop_reason == "answer"
        assert [r.content for r in trace.results][0] == "42"
        assert trace.results[1].ok and "14 °C" in trace.results[1].content
        first, second = trace.steps[0].generation.prompt, trace.steps[1].generation.prompt
        assert '"name": "get_weather"' not in first and '"name": "get_weather"' in second

        notice = box.wire.filter("notifications/tools/list_changed").frames
        assert len(notice) == 1 and notice[0].direction == "←" and notice[0].kind == "notification"
        frames = box.wire.frames
        at = frames.index(notice[0])
        assert frames[at + 1].method == "tools/call" and frames[at + 1].kind == "response"  # before the result
        assert any(f.method == "tools/list" and f.kind == "request" for f in frames[at:])
        assert box.list_changes == 1


# -- the harness on top ----------------------------------------------------------------------------

def test_the_harness_runs_unchanged_on_top(box):
    model = ScriptedModel([tagged("calculator", expression="1234 * 5678"), "It is 7,006,652."])
    trace = run_harness(model, "What is 1234 × 5678?", box)
    assert trace.stop_reason == "answer" and trace.answer == "It is 7,006,652."
    (result,) = trace.results
    assert result.ok and result.content == "7006652"
    prompt = trace.steps[0].generation.prompt
    assert '"name": "calculator"' in prompt and "save_memory" not in prompt and "user_id" not in prompt


def test_the_harness_feeds_a_refusal_back_to_the_model(box):
    model = ScriptedModel([tagged("save_memory", note="the user is Ada"), "I cannot save that."])
    trace = run_harness(model, "Remember that I am Ada.", box)
    (result,) = trace.results
    assert result.error_kind == "hidden_tool" and trace.stop_reason == "answer"


# -- starting and stopping -------------------------------------------------------------------------

def test_close_leaves_no_process_and_no_thread():
    before = set(portal_threads())  # the shared toolbox's thread may be running
    box = MCPToolbox()
    pid = box.pid
    (mine,) = set(portal_threads()) - before
    assert running(pid)
    box.close()
    assert gone_within(pid) and not mine.is_alive()
    box.close()  # twice is fine
    after = box.call("calculator", {"expression": "1+1"})
    assert after.error_kind == "server_error" and "closed" in after.content


@pytest.mark.parametrize("command", [[sys.executable, "-c", "import sys; sys.exit(3)"],
                                     ["/no/such/server"]])
def test_a_server_that_never_starts_is_a_clear_error(command):
    before = set(portal_threads())
    with pytest.raises(MCPConnectionError, match="could not connect"):
        MCPToolbox(command, connect_timeout=10)
    assert set(portal_threads()) <= before


def test_streamable_http_on_localhost():
    port = free_port()
    server = subprocess.Popen(server_command(http=True, port=port), stderr=subprocess.PIPE)
    try:
        wait_for_port(port)
        with MCPToolbox(url=f"http://127.0.0.1:{port}/mcp", context={"user_id": "bob"}, timeout=5) as box:
            assert box.protocol_version == PROTOCOL_VERSION and box.pid is None
            assert box.tools == expected_listing(faults=False)
            assert box.call("calculator", {"expression": "1234 * 5678"}).content == "7006652"
            assert "Surprise party" in box.call("my_notes", {"query": "party"}).content
            assert box.call_as_application("enable_weather").ok
            assert "get_weather" in box.names()
            assert box.wire.filter("notifications/tools/list_changed").frames
    finally:
        server.terminate()
        server.wait(10)
        server.stderr.close()


# -- the structured side (2025-11-25): outputSchema, annotations, confirmation, closed inputs -------

class Dialog:
    """The application's confirmation dialog: records each question and gives `answer`."""

    def __init__(self):
        self.answer, self.questions = False, []

    def __call__(self, name, arguments):
        self.questions.append((name, arguments))
        return self.answer


@pytest.fixture(scope="module")
def dialog():
    return Dialog()


@pytest.fixture(scope="module")
def shaped(dialog):
    """A server started with --structured; the application asks `dialog` before a destructive call."""
    with MCPToolbox(structured=True, confirm=dialog, context={"user_id": "ada"}) as toolbox:
        yield toolbox
    assert gone_within(toolbox.pid)


@pytest.fixture
def asking(shaped, dialog):
    """The structured toolbox with a dialog that says no and has not been asked yet."""
    dialog.answer, dialog.questions = False, []
    policy = shaped.confirm
    yield shaped, dialog
    shaped.confirm = policy


def entries(box, folder):
    return [entry["name"] for entry in json.loads(box.call("browse_files", {"path": folder}).content)["entries"]]


def sent_calls(box, name):
    return [f for f in box.wire.filter("tools/call", kind="request").frames if f.message["params"]["name"] == name]


def test_the_structured_server_publishes_output_schema_and_annotations(shaped):
    assert shaped.tools == KitchenServer(structured=True).listing()  # what the SDK client parsed
    listing = last_frame(shaped, "tools/list", "response").message["result"]["tools"]  # what crossed the wire
    count = next(t for t in listing if t["name"] == "count_words")
    assert count["outputSchema"] == output_schema(count_words)
    assert count["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    delete = next(t for t in listing if t["name"] == "delete_file")
    assert delete["annotations"]["destructiveHint"] is True and delete["annotations"]["readOnlyHint"] is False
    assert all(t["inputSchema"]["additionalProperties"] is False for t in listing)
    model_sees = json.dumps(shaped.schemas())  # the model reads the inputs only
    assert "outputSchema" not in model_sees and "destructiveHint" not in model_sees


def test_a_structured_result_is_checked_and_kept_while_the_model_reads_the_text(shaped):
    result = shaped.call("count_words", {"text": "one two three"})
    expected = {"words": 3, "lines": 1, "characters": 13, "of": "one two three"}
    assert result.ok and result.structured == json.loads(result.content) == expected
    answer = last_frame(shaped, "tools/call", "response").message["result"]
    assert answer["structuredContent"] == expected
    assert answer["content"] == [{"type": "text", "text": json.dumps(expected)}]
    assert shaped.call("calculator", {"expression": "6 * 7"}).structured is None


def test_read_only_tools_never_ask_the_user(asking):
    box, dialog = asking
    for name, arguments in [("calculator", {"expression": "2 + 2"}), ("count_words", {"text": "hi"}),
                            ("browse_files", {"path": "notes"}), ("my_notes", {"query": "dentist"}),
                            ("search_rhymes", {"query": "sheep"}), ("fetch_page", {"url": "nowhere.example"})]:
        result = box.call(name, arguments)
        assert result.error_kind != "not_confirmed", name
    assert dialog.questions == []


def test_a_destructive_call_the_user_declines_does_not_run(asking):
    box, dialog = asking
    result = box.call("delete_file", {"path": "notes/todo.md"})
    assert not result.ok and result.error_kind == "not_confirmed"
    assert result.content == ("Error (not_confirmed): delete_file did not run: the user declined. Do not call it "
                              "again for this; tell the user what you would have done.")
    assert dialog.questions == [("delete_file", {"path": "notes/todo.md"})]
    assert sent_calls(box, "delete_file") == []  # the server never heard of it
    assert "todo.md" in entries(box, "notes")


def test_with_no_one_to_ask_a_destructive_call_does_not_run(asking):
    box, dialog = asking
    box.confirm = ConfirmDestructive()  # the application has no way to ask its user
    result = box.call("delete_file", {"path": "notes/todo.md"})
    assert result.error_kind == "not_confirmed" and "has no way to ask" in result.content
    assert sent_calls(box, "delete_file") == [] and "todo.md" in entries(box, "notes")


def test_a_destructive_call_the_user_confirms_runs(asking):
    box, dialog = asking
    dialog.answer = True
    result = box.call("delete_file", {"path": "recipes/lemonade.md"})
    assert result.ok and result.content.startswith("Deleted recipes/lemonade.md (")
    assert dialog.questions == [("delete_file", {"path": "recipes/lemonade.md"})]
    assert len(sent_calls(box, "delete_file")) == 1 and entries(box, "recipes") == ["pancakes.md"]
    assert box.confirm.asked[-1].answer is True


def test_the_application_s_own_call_is_its_own_decision(asking):
    box, dialog = asking
    assert box.call_as_application("delete_file", {"path": "photos/cake-stall.jpg"}).ok
    assert dialog.questions == [] and entries(box, "photos") == ["cat-on-wall.jpg"]


def test_the_model_reads_that_the_user_declined(asking):
    box, dialog = asking
    model = ScriptedModel([tagged("delete_file", path="notes/shopping.txt"), "I left your shopping list alone."])
    trace = run_harness(model, "Delete my shopping list.", box)
    (result,) = trace.results
    assert result.error_kind == "not_confirmed" and trace.stop_reason == "answer"
    assert "shopping.txt" in entries(box, "notes") and len(dialog.questions) == 1


def test_an_extra_field_is_an_error_result_naming_it(shaped):
    result = shaped.call("count_words", {"text": "one", "colour": "red"})
    assert not result.ok and result.error_kind == "invalid_arguments"
    assert "Additional properties are not allowed ('colour' was unexpected)" in result.content
    answer = last_frame(shaped, "tools/call", "response").message["result"]  # the server's answer
    assert answer["isError"] is True and "'colour' was unexpected" in answer["content"][0]["text"]


# A stand-in server in a few lines of Python (no SDK) that lists count_words with its outputSchema
# and answers a call with structuredContent that fits it ("right"), or not ("wrong", "missing").
OFF_SCHEMA_SERVER = """
import json, sys
SCHEMA = json.loads(%r)
TOOL = {"name": "count_words", "description": "Count words.", "outputSchema": SCHEMA,
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
RIGHT = {"words": 3, "lines": 1, "characters": 13, "of": "one two three"}
STRUCTURED = {"right": RIGHT, "wrong": dict(RIGHT, words="three")}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "off-schema", "version": "0"}}
    elif message["method"] == "tools/list":
        result = {"tools": [TOOL]}
    else:
        result = {"content": [{"type": "text", "text": "3 words"}]}
        how = message["params"]["arguments"]["text"]
        if how in STRUCTURED:
            result["structuredContent"] = STRUCTURED[how]
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def test_structured_content_off_its_schema_is_a_tool_error_not_a_crash():
    script = OFF_SCHEMA_SERVER % json.dumps(output_schema(count_words))
    with MCPToolbox([sys.executable, "-c", script], timeout=5) as box:
        wrong = box.call("count_words", {"text": "wrong"})
        assert not wrong.ok and wrong.error_kind == "tool_error" and wrong.structured is None
        assert wrong.content == ("Error (tool_error): count_words returned a result that does not fit its output "
                                 "schema: 'three' is not of type 'integer' (at words). The result was not used.")
        missing = box.call("count_words", {"text": "missing"})
        assert missing.error_kind == "tool_error" and "no structuredContent came back" in missing.content
        right = box.call("count_words", {"text": "right"})
        assert right.ok and right.content == "3 words" and right.structured["words"] == 3
        assert box.alive


def test_to_tool_result_checks_structured_content_only_against_a_schema():
    schema = output_schema(count_words)
    good = {"words": 1, "lines": 1, "characters": 2, "of": "hi"}

    def result(structured):
        return types.CallToolResult(content=[types.TextContent(type="text", text="1 word")],
                                    structured_content=structured)

    assert to_tool_result("count_words", {}, result(good), 0.1, schema).structured == good
    off = to_tool_result("count_words", {}, result({**good, "of": 2}), 0.1, schema)
    assert off.error_kind == "tool_error" and "2 is not of type 'string' (at of)" in off.content
    unchecked = to_tool_result("count_words", {}, result({"anything": True}), 0.1)  # no schema: kept as it is
    assert unchecked.ok and unchecked.structured == {"anything": True} and unchecked.content == "1 word"
    assert to_tool_result("count_words", {}, result(None), 0.1).structured is None
