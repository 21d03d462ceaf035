"""The MCP server's logic in this process, without a transport: listing, checks, switches; and its
command line (`kitchen.mcp.__main__`, what `python -m kitchen.mcp` runs)."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from kitchen.mcp.__main__ import main as serve
from kitchen.mcp.conventions import context_key
from kitchen.mcp.server import KitchenServer
from kitchen.mcp.more_tools import get_weather
from kitchen.mcp.structured import TOOL_HINTS, output_schema, structured_problem
from kitchen.settings import DATA
from kitchen.tools.schemas import to_mcp, tool_schema
from kitchen.tools.words import WordCounts
from kitchen.tools import TOY_TOOLS, browse_files, count_words

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
    shown = capsys.readouterr().out
    assert "python -m kitchen.mcp" in shown and "--structured" in shown


# -- with --structured: outputSchema, annotations, closed input schemas, delete_file (2025-11-25) --

def test_the_default_server_publishes_none_of_the_structured_side():
    kitchen = KitchenServer()
    for tool in kitchen.listing():
        assert set(tool) == {"name", "description", "inputSchema"}
        assert "additionalProperties" not in tool["inputSchema"]
    assert "delete_file" not in kitchen.tools


def test_the_structured_listing_publishes_schemas_and_hints():
    listing = {t["name"]: t for t in KitchenServer(structured=True).listing()}
    assert list(listing) == [fn.__name__ for fn in TOY_TOOLS] + ["my_notes", "save_memory", "enable_weather",
                                                                 "delete_file"]
    assert [name for name, tool in listing.items() if "outputSchema" in tool] == ["count_words"]
    assert listing["count_words"]["outputSchema"] == output_schema(count_words)
    for name, tool in listing.items():
        assert tool["annotations"] == TOOL_HINTS[name]
        assert tool["inputSchema"]["additionalProperties"] is False
    assert listing["calculator"]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert listing["delete_file"]["annotations"]["destructiveHint"] is True
    assert listing["delete_file"]["inputSchema"]["required"] == ["path"]


def test_a_structured_result_carries_the_same_json_as_text():
    kitchen = KitchenServer(structured=True)
    result = anyio.run(kitchen.run_tool, "count_words", {"text": "one two three"}, {})
    (part,) = result.content
    assert not result.is_error and part.type == "text"
    assert json.loads(part.text) == result.structured_content == {"words": 3, "lines": 1, "characters": 13,
                                                                  "of": "one two three"}
    assert structured_problem(kitchen.tools["count_words"].mcp["outputSchema"], result.structured_content) is None
    plain = anyio.run(kitchen.run_tool, "calculator", {"expression": "6 * 7"}, {})
    assert plain.structured_content is None and plain.content[0].text == "42"


def test_an_extra_field_is_an_error_result_naming_it():
    is_error, kind, text = run(KitchenServer(structured=True), "count_words", {"text": "one", "colour": "red"})
    assert is_error and kind == "invalid_arguments"
    assert "Additional properties are not allowed ('colour' was unexpected)" in text
    assert '"additionalProperties": false' in text  # the schema it quotes says so too


def test_a_result_off_its_own_schema_is_never_sent_as_structured_content():
    def miscount(text: str) -> WordCounts:
        """Count the words of a text, wrongly.

        Args:
            text: The text to count.
        """
        return {"words": "many", "lines": 1, "characters": len(text), "of": text}

    kitchen = KitchenServer(structured=True)
    kitchen.add_tool(miscount)
    result = anyio.run(kitchen.run_tool, "miscount", {"text": "a b"}, {})
    assert result.is_error and result.structured_content is None
    assert result.meta == {"llm-kitchen/error_kind": "tool_error"}
    assert result.content[0].text == ("miscount returned a result that does not fit its output schema: 'many' is "
                                      "not of type 'integer' (at words). The result was not used.")


def test_delete_file_changes_only_this_server_s_copy():
    on_disk = (DATA / "files.json").read_text(encoding="utf-8")
    todo = json.loads(on_disk)["notes"]["todo.md"]
    kitchen = KitchenServer(structured=True)
    assert run(kitchen, "delete_file", {"path": "notes/todo.md"}) == (
        False, None, f"Deleted notes/todo.md ({len(todo)} characters).")
    listing = json.loads(run(kitchen, "browse_files", {"path": "notes"})[2])
    assert [entry["name"] for entry in listing["entries"]] == ["shopping.txt"]
    assert "todo.md" in [entry["name"] for entry in browse_files("notes")["entries"]]  # the shared tree
    assert "todo.md" in run(KitchenServer(structured=True), "browse_files", {"path": "notes"})[2]  # another server
    assert (DATA / "files.json").read_text(encoding="utf-8") == on_disk
    for path, says in [("notes/todo.md", "There is no 'notes/todo.md'"), ("recipes", "only files can be deleted"),
                       ("../../etc/passwd", "'..'"), ("/etc/passwd", "absolute path")]:
        is_error, kind, text = run(kitchen, "delete_file", {"path": path})
        assert is_error and kind == "tool_error" and says in text, path
