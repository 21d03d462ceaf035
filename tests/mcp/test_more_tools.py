"""The tools the MCP server offers besides the toy ones (`kitchen.mcp.more_tools`), called directly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kitchen.mcp.more_tools import get_weather, my_notes, search_notes
from kitchen.tools import ToolError


def test_my_notes_searches_one_users_notes():
    assert my_notes("ladder", user_id="bob") == "- The ladder is in Ada's shed; take it back before the weekend."
    assert my_notes("*", user_id="ada").count("\n") == 2
    assert my_notes("unicorn", user_id="ada") == "None of the user's 3 notes mention 'unicorn'."
    with pytest.raises(ToolError):
        my_notes("x", user_id="nobody")


def test_a_search_matches_any_of_its_words_whatever_their_case():
    notes = ["Buy eggs.", "Call Bob.", "Fix the bike."]
    assert search_notes(notes, "ada", "EGGS bike") == "- Buy eggs.\n- Fix the bike."
    assert search_notes(notes, "ada", "*") == search_notes(notes, "ada", "") == "- Buy eggs.\n- Call Bob.\n- Fix the bike."
    assert search_notes([], "ada", "eggs") == "None of the user's 0 notes mention 'eggs'."
    with pytest.raises(ToolError, match="no notebook for the signed-in user 'zoe'"):
        search_notes(None, "zoe", "eggs")


def test_the_weather_is_found_whatever_the_spacing_and_case_of_the_town():
    assert get_weather("  much   WOBBLING ") == ("Much Wobbling today: sunny spells, a light breeze. High 17 °C, "
                                                "low 9 °C, 10 percent chance of rain, wind west, 10 km/h.")
    with pytest.raises(ToolError) as unknown:
        get_weather("Atlantis")
    assert str(unknown.value) == ("No weather for 'Atlantis'. Known towns: Little Puddleton, Much Wobbling, "
                                  "Upper Crumpet, Lower Teacup.")


def test_the_crash_switch_ends_the_process_with_exit_code_1_before_answering():
    code = "from kitchen.mcp.more_tools import crash; print(crash())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (1, "")
