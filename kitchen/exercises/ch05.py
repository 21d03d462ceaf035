"""Chapter 05's exercises: a `tools/call` frame written by hand and sent to the real server, and
whose error the model reads when a call through MCP fails.

>>> print(check_error_kinds(...))
… Not done yet (05.error_kinds): replace the `...` of `my_kinds` with your answer, then run the cell again.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import mcp.types as types
from mcp.shared.exceptions import MCPError

from kitchen.mcp import MCPToolbox, RawSession, WireLog
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

# The kinds of error result a model can read from a call through kitchen's MCP client.
KINDS = ("tool_error", "invalid_arguments", "unknown_tool", "hidden_tool", "server_error", "timeout")
SITUATIONS = {
    "too big": "the model asks the calculator for 10 ** 10 ** 10",
    "not listed": "the model calls get_weather before the application has switched the weather on",
    "JSON-RPC error": "the server answers the model's tools/call with a JSON-RPC error, code -32603 (internal error)",
    "no answer": "the server never answers the model's call",
    "server died": "the model calls the calculator after the server process has stopped",
}
# Where to look when a situation's kind is wrong (never the kind itself).
LOOK = {
    "too big": "Who answered? The server ran the calculator and the calculator raised: section 3 shows what a "
               "failing tool sends back, with its kind in _meta.",
    "not listed": "Does the client send a call to a tool its list does not hold? And is get_weather hidden, "
                  "or not on the list at all?",
    "JSON-RPC error": "A JSON-RPC error is not a tool result: the server refused the request itself. "
                      "kitchen/mcp/failures.py says how the client files it.",
    "no answer": "Nothing came back: the client does not wait for ever (section 6).",
    "server died": "The client knows its server process stopped: look at section 6's last call.",
}


def check_tools_call_frame(frame: Any, wire: WireLog | None = None, timeout: float = 10.0) -> Feedback:
    """A JSON-RPC request (a dict, or its JSON text) asking the server's calculator for 12 * 34.

    The check opens a session with chapter 05's server (the handshake by hand), sends your frame
    exactly as written, and shows the server's answer. Pass the chapter's `wire` to see your frame
    in its log.
    """
    ex = "05.tools_call_frame"
    if blank(frame):
        return not_done(ex, "`frame`")
    message = frame
    if isinstance(frame, str):
        try:
            message = json.loads(frame)
        except json.JSONDecodeError as err:
            return wrong(ex, f"this is not JSON ({err.msg} at character {err.pos}); the server would answer -32700.",
                         "Build it as a dict and let json.dumps write it.")
    if not isinstance(message, dict):
        return wrong(ex, "a JSON-RPC message is one JSON object.")
    if message.get("jsonrpc") != "2.0":
        return wrong(ex, f'"jsonrpc" is {message.get("jsonrpc")!r}; every JSON-RPC 2.0 message says "2.0".')
    if "id" not in message or message["id"] is None:
        return wrong(ex, "without an id this is a notification: the server sends nothing back, and you "
                         "could not tell its answer from another.", "Add an id (a number or a string).")
    if message.get("method") != "tools/call":
        return wrong(ex, f"the method is {message.get('method')!r}; the server would answer -32601 (method not "
                         "found).", "MCP names its methods like tools/list.")
    params = message.get("params")
    if not isinstance(params, dict) or "name" not in params:
        return wrong(ex, '"params" should hold the tool\'s "name" and its "arguments".')
    with RawSession(wire=wire, timeout=timeout) as raw:
        raw.initialize()
        raw.send(frame if isinstance(frame, str) else message)
        try:
            answer = raw.wait_for(lambda m: m.get("id") == message["id"] and "method" not in m)
        except (TimeoutError, ConnectionError) as err:
            return wrong(ex, f"the server sent no answer to it: {err}")
    shown = json.dumps(answer, ensure_ascii=False)
    if "error" in answer:
        return wrong(ex, f"the server answered with a protocol error: {shown}",
                     "Read its message: it names what it did not accept.")
    result = answer.get("result", {})
    texts = [c.get("text", "") for c in result.get("content", [])]
    if result.get("isError"):
        return wrong(ex, f"the tool ran and reported an error, which the model would read: {texts}",
                     'The calculator\'s one argument is "expression".')
    if texts != ["408"]:
        return wrong(ex, f"the calculator answered {texts}, not 408: check the expression. Answer: {shown}")
    return right(ex, f"the server answered {shown}")


@functools.lru_cache(maxsize=None)
def error_kinds(timeout: float = 1.0) -> dict[str, str]:
    """The kind of error result the model reads in each of `SITUATIONS`: kitchen's MCP client
    (`MCPToolbox`) on a real server started with its fault tools (`stall`, `crash`), `timeout`
    seconds given to the stalled call."""
    with MCPToolbox(faults=True) as box:
        kinds = {"too big": box.call("calculator", {"expression": "10 ** 10 ** 10"}).error_kind,
                 "not listed": box.call("get_weather", {"location": "Little Puddleton"}).error_kind}
        # The SDK raises a JSON-RPC error answer as an MCPError; the client's failure handling files it.
        # (This server sends one for an unknown tool only, and the client never sends it such a call.)
        refused = MCPError(code=types.INTERNAL_ERROR, message="Internal error")
        kinds["JSON-RPC error"] = box._failure_result("calculator", {}, refused, 0.0).error_kind
        box.timeout = timeout
        kinds["no answer"] = box.call("stall", {}).error_kind
        box.call("crash", {})
        kinds["server died"] = box.call("calculator", {"expression": "2 + 2"}).error_kind
    return kinds


def check_error_kinds(kinds: Any) -> Feedback:
    """For each of `SITUATIONS`, the kind of error result the model reads next (`Error (kind): ...`),
    one of `KINDS`."""
    ex = "05.error_kinds"
    if blank(kinds) or (isinstance(kinds, dict) and any(blank(k) for k in kinds.values())):
        return not_done(ex, "`my_kinds`")
    if not isinstance(kinds, dict) or set(kinds) != set(SITUATIONS) or \
            not all(isinstance(k, str) and k in KINDS for k in kinds.values()):
        return wrong(ex, f"give a dict with the keys {list(SITUATIONS)}, each one of {list(KINDS)}.")
    truth = error_kinds()
    off = [s for s in SITUATIONS if kinds[s] != truth[s]]
    if not off:
        mine = sorted({k for s, k in truth.items() if s in ("too big", "not listed")})
        theirs = sorted({k for s, k in truth.items() if s not in ("too big", "not listed")})
        return right(ex, f"{' and '.join(mine)} are the model's to fix with another call; {' and '.join(theirs)} "
                         "come from the server's side, however well the call was written. Every one reaches the "
                         "model as a result it can read, and the loop carries on.")
    lines = [f"{s} ({SITUATIONS[s]}): not {kinds[s]!r}" for s in off]
    return wrong(ex, f"{len(SITUATIONS) - len(off)} of {len(SITUATIONS)} right.\n  " + "\n  ".join(lines), LOOK[off[0]])
