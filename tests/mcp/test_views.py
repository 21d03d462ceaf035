"""Chapter 05's HTML views (`kitchen.mcp.views`): the wire as a conversation, and the tool table."""

from __future__ import annotations

from kitchen.mcp.frames import Frame
from kitchen.mcp.views import CLIENT_COLOUR, ERROR_COLOUR, SERVER_LABEL, STYLES, conversation, tool_table


def test_the_conversation_uses_the_named_styles_and_colours():
    frames_ = [Frame("→", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.25, raw='{"id":1}', method="ping"),
               Frame("←", {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}}, 0.5, method="ping")]
    page = conversation(frames_, "the text", times=True)
    assert page.text == "the text" and repr(page) == "the text"
    assert page.html.startswith(f"<div style='{STYLES['page']}'><div style='{STYLES['head']}'>")
    assert "<span>2 frames</span>" in page.html and SERVER_LABEL in page.html
    assert f"background:{CLIENT_COLOUR}" in page.html and f"background:{ERROR_COLOUR}" in page.html
    assert "· client · 0.250 s" in page.html and page.html.count("exact line on the wire:") == 1
    assert " s</span>" not in conversation(frames_, "", times=False).html


def test_the_tool_table_says_who_sees_what():
    shown = tool_table([("calculator", False, ["expression"]), ("enable_weather", True, [])])
    assert [line.rstrip() for line in shown.text.splitlines()] == [
        "tool            model sees it?       parameters",
        "calculator      shown to the model   expression",
        "enable_weather  hidden (agent-only)  (none)"]
    assert "<table>" in shown.html
