"""Chapter 05's exercises: a `tools/call` frame written by hand and sent to the real server, and
the order of the messages that open a session.

>>> print(check_session_order(["initialize", "notifications/initialized", "tools/list", "tools/call"]))
✓ Right (05.session_order): the client asks to initialize, confirms with the notification, then lists the tools before calling one.
"""

from __future__ import annotations

import json
from typing import Any

from kitchen.mcp import RawSession, WireLog
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

OPENING = ["initialize", "notifications/initialized", "tools/list", "tools/call"]


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


def check_session_order(methods: Any) -> Feedback:
    """The methods of the first four frames a client sends to an MCP server, in order, ending
    with a call of a tool."""
    ex = "05.session_order"
    if blank(methods):
        return not_done(ex, "`methods`")
    if not isinstance(methods, (list, tuple)) or not all(isinstance(m, str) for m in methods):
        return wrong(ex, "give a list of method names, such as 'tools/list'.")
    methods = list(methods)
    unknown = [m for m in methods if m not in OPENING]
    if unknown:
        return wrong(ex, f"{unknown} {'is' if len(unknown) == 1 else 'are'} not among the four; the chapter's wire log "
                         "shows every frame's method.")
    if methods == OPENING:
        return right(ex, "the client asks to initialize, confirms with the notification, then lists the tools "
                         "before calling one.")
    if not methods or methods[0] != "initialize":
        return wrong(ex, f"the session starts with {methods[0] if methods else 'nothing'}; a server answers nothing "
                         "else before the client and it have agreed on a protocol version.")
    if "notifications/initialized" not in methods or methods.index("notifications/initialized") != 1:
        return wrong(ex, "after the server's answer to initialize, the client says it is ready before anything else.",
                     "It is a notification: it has no id and gets no answer.")
    return wrong(ex, "the client cannot call a tool it has not been told about.",
                 "The names and schemas come from one request.")
