"""The MCP server's logic in this process, without a transport: listing, checks, switches; and its
command line (`kitchen.mcp.__main__`, what `python -m kitchen.mcp` runs)."""

from __future__ import annotations

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from kitchen.mcp.__main__ import main as serve
from kitchen.mcp.conventions import context_key
from kitchen.mcp.server import KitchenServer
from kitchen.mcp.more_tools import get_weather
from kitchen.tools.schemas import to_mcp, tool_schema
from kitchen.tools import TOY_TOOLS

ADA = {context_key("user_id"): "ada"}


def run(kitchen: KitchenServer, name: str, arguments: dict, meta: dict | None = None):
    result = anyio.run(kitchen.run_tool, name, arguments, meta or {})
    kind = (result.meta or {}).get("llm-kitchen/error_kind")
    return result.is_error, kind, " ".join(part.text for part in result.content)


def test_the_listing_is_built_from_the_functions():
    kitchen = KitchenServer()
    listing = kitchen.listing()
    assert listing[:5] == [to_mcp(tool_schema(fn)) for fn in TOY_TOOLS]
    assert [t["name"] for t in listing] == [fn.__name__ for fn in TOY_TOOLS] + ["my_notes", "save_memory",
                                                                                 "enable_weather"]
    assert "user_id" not in str(listing)
    assert [t["name"] for t in KitchenServer(faults=True).listing()][-2:] == ["stall", "crash"]


def test_the_capabilities_announce_list_changes():
    options = KitchenServer().initialization_options()
    assert options.capabilities.tools is not None and options.capabilities.tools.list_changed is True
    assert options.server_name == "llm-kitchen-tools"


def test_a_good_call():
    assert run(KitchenServer(), "calculator", {"expression": "1234 * 5678"}) == (False, None, "7006652")


@pytest.mark.parametrize("arguments, words", [({}, "'expression' is a required property"),
                                              ({"expression": 1}, "1 is not of type 'string'"),
                                              ({"expression": "1", "x": 2}, "Additional properties")])
def test_arguments_are_checked_against_the_input_schema(arguments, words):
    is_error, kind, text = run(KitchenServer(), "calculator", arguments)
    assert is_error and kind == "invalid_arguments" and words in text and "Expected:" in text


def test_a_tool_that_raises_is_an_error_result():
    is_error, kind, text = run(KitchenServer(), "calculator", {"expression": "1/0"})
    assert is_error and kind == "tool_error" and text.startswith("calculator failed: ToolError:")


def test_an_unknown_tool_is_a_protocol_error():
    with pytest.raises(MCPError) as caught:
        run(KitchenServer(), "teleport", {})
    assert caught.value.code == -32602 and "calculator" in caught.value.message


def test_the_user_comes_from_meta_only():
    kitchen = KitchenServer()
    assert run(kitchen, "my_notes", {"query": "dentist"}, ADA) == (False, None, "- Dentist on Thursday at 10:30.")
    assert run(kitchen, "my_notes", {"query": "x", "user_id": "bob"}, ADA)[1] == "injected_argument"
    assert run(kitchen, "my_notes", {"query": "x"})[1] == "missing_context"
    assert run(kitchen, "my_notes", {"query": "x"}, {context_key("user_id"): "mallory"})[1] == "tool_error"


def test_the_weather_switch_adds_a_tool_once():
    kitchen = KitchenServer()
    assert "get_weather" not in kitchen.tools
    version = kitchen.list_version
    assert run(kitchen, "enable_weather", {}) == (False, None, "get_weather is on.")
    assert kitchen.listing()[-1] == to_mcp(tool_schema(get_weather)) and kitchen.list_version == version + 1
    assert run(kitchen, "enable_weather", {})[2] == "get_weather is already on."
    assert kitchen.list_version == version + 1
    assert run(kitchen, "get_weather", {"location": " little  PUDDLETON "})[2].startswith("Little Puddleton today")
    is_error, kind, text = run(kitchen, "get_weather", {"location": "Atlantis"})
    assert is_error and kind == "tool_error" and "Much Wobbling" in text


def test_save_memory_keeps_notes_in_the_process():
    kitchen = KitchenServer()
    run(kitchen, "save_memory", {"note": "likes pancakes"})
    assert run(kitchen, "save_memory", {"note": "lives in Little Puddleton"})[2] == \
        "Saved to memory (note 2): lives in Little Puddleton"
    assert kitchen.memory == ["likes pancakes", "lives in Little Puddleton"]


def test_the_stall_switch_answers_only_when_its_time_is_up():
    assert run(KitchenServer(faults=True), "stall", {"seconds": 0.01}) == (False, None, "waited 0.01 s")


def test_the_server_s_command_line_says_how_to_start_it(capsys):
    with pytest.raises(SystemExit) as stop:
        serve(["--help"])
    assert stop.value.code == 0
    assert "python -m kitchen.mcp" in capsys.readouterr().out
