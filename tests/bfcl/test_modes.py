"""The three ways of asking a BFCL question, and of reading the reply (`kitchen.bfcl.modes`)."""

import json
import subprocess
import sys

import pytest

from kitchen.bfcl.data import load_cases
from kitchen.bfcl.grading import IRRELEVANT_CALL, NO_CALL, grade
from kitchen.bfcl.modes import MODES, bfcl_system_prompt, find_calls, request
from kitchen.grammar.calls import grammar_error

CASES = load_cases()


def test_each_mode_builds_its_request():
    case = CASES[0]
    native, prompt, constrained = (request(case, m) for m in MODES)
    assert native.tools and native.grammar is None and native.messages == case.messages
    assert prompt.tools is None and prompt.messages[0]["role"] == "system"
    assert "[func_name1(params_name1=params_value1" in bfcl_system_prompt(case)
    assert "Note that the provided function is in Python 3 syntax." in bfcl_system_prompt(case)
    assert constrained.grammar and not grammar_error(constrained.grammar)
    with pytest.raises(ValueError):
        request(case, "telepathy")


def test_every_case_has_a_grammar():
    assert not [c.id for c in CASES if request(c, "constrained").grammar_error]


def test_calls_are_read_the_way_each_mode_asks():
    spotify = next(c for c in CASES if c.id == "parallel_0")
    text = '[spotify.play(artist="Taylor Swift", duration=20), spotify.play(artist="Maroon 5", duration=15)]'
    assert grade(spotify, find_calls(spotify, "prompt", text).calls).valid
    tagged = "\n".join('<tool_call>\n' + json.dumps({"name": "spotify.play", "arguments": a}) + '\n</tool_call>'
                       for a in ({"artist": "Taylor Swift", "duration": 20}, {"artist": "Maroon 5", "duration": 15}))
    assert grade(spotify, find_calls(spotify, "native", tagged).calls).valid
    assert find_calls(spotify, "native", text).calls == []  # native mode does not read Python calls


def test_prompt_mode_reads_replies_as_bfcl_does():
    spotify = next(c for c in CASES if c.id == "parallel_0")
    # An argument the function does not have reaches BFCL's checker (not dropped by our parser).
    extra = '[spotify.play(artist="Taylor Swift", duration=20, volume=3), spotify.play(artist="Maroon 5", duration=15)]'
    verdict = grade(spotify, find_calls(spotify, "prompt", extra).calls)
    assert not verdict.valid and verdict.error_type != NO_CALL
    # So does a function that was not offered: in irrelevance it is a call where none was wanted.
    irrelevant = next(c for c in CASES if c.category == "irrelevance")
    assert grade(irrelevant, find_calls(irrelevant, "prompt", "[get_weather(city='Paris')]").calls).error_type == IRRELEVANT_CALL
    # Prose, or calls inside prose, are not a list of calls: no call, and the decoder's reason.
    for text in ("I cannot answer that.", "Sure: spotify.play(artist='A', duration=1) is what you need."):
        read = find_calls(spotify, "prompt", text)
        assert read.calls == [] and read.errors[0].kind == "bad_call"
        assert grade(irrelevant, read.calls).valid and grade(spotify, read.calls).error_type == NO_CALL


def test_prompt_mode_decodes_python_without_tree_sitter():
    """BFCL's decoder module imports its Java and JavaScript parsers, which need tree-sitter; the
    learner set does not install it (no wheels for every Python), so stand-ins refuse those two."""
    code = ("import sys; sys.modules['tree_sitter'] = None\n"  # None in sys.modules: the import fails
            "from kitchen.bfcl.modes import bfcl_decode\n"
            "print([(c.name, c.arguments) for c in bfcl_decode('[math.hypot(x=3, y=4)]').calls])\n"
            "from bfcl_eval.model_handler.parser.java_parser import parse_java_function_call\n"
            "try:\n    parse_java_function_call('f(1)')\nexcept SyntaxError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["[('math.hypot', {'x': 3, 'y': 4})]",
                                       "Java calls need tree-sitter, which this project does not install "
                                       "(it asks Python only)"]
