"""Chapter 02's exercise checks: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error.
Then the notebook's own "Your turn" cells, as shipped and as solved.

The exercises: a tool with an enum, what a tool costs in the prompt, a call written by hand.
"""

from __future__ import annotations

import json
from typing import Literal

import kitchen.exercises.ch02 as ch02
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator
from kitchen.tools.schemas import tool_schema

from notebook_exercises import check_ships_not_done_and_solved


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch02.check_enum_tool(...),
               ch02.check_tool_cost(calculator, ...),
               ch02.check_call_text(...)]
    assert all(f.status == "not done" for f in shipped)


def convert(value: float, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Convert a temperature.

    Args:
        value: The temperature to convert.
        unit: The unit to convert to. Defaults to celsius.
    """
    return str(value)


def convert_silent_default(value: float, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Convert a temperature.

    Args:
        value: The temperature to convert.
        unit: The unit to convert to.
    """
    return str(value)


def convert_no_enum(value: float, unit: str = "celsius") -> str:
    """Convert a temperature.

    Args:
        value: The temperature to convert.
        unit: The unit to convert to. Defaults to celsius.
    """
    return str(value)


def convert_no_docstring(value: float, unit: str = "celsius") -> str:
    return str(value)


def test_enum_tool():
    assert ch02.check_enum_tool(convert).right
    silent = ch02.check_enum_tool(convert_silent_default)
    assert silent.status == "wrong" and "the model cannot know what happens if it leaves `unit` out" in silent.message
    assert "no parameter of the schema has an `enum`" in ch02.check_enum_tool(convert_no_enum).message
    assert "the schema cannot be built" in ch02.check_enum_tool(convert_no_docstring).message
    assert "a tool is a Python function" in ch02.check_enum_tool("convert").message


def test_tool_cost():
    cost = ch02.tool_cost(calculator)
    assert ch02.check_tool_cost(calculator, cost).right
    schema_only = len(ScriptedModel([]).encode(json.dumps(tool_schema(calculator))))
    assert "the schema's JSON alone" in ch02.check_tool_cost(calculator, schema_only).message
    assert "less than the prompt grows by" in ch02.check_tool_cost(calculator, 10).message


def test_call_text():
    ok = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "12 * 34"}}\n</tool_call>'
    assert ch02.check_call_text(ok).right
    bare = ch02.check_call_text('{"name": "calculator", "arguments": {"expression": "12 * 34"}}')
    assert bare.status == "wrong" and "between <tool_call> and </tool_call>" in bare.message
    assert "does not compute 12 * 34" in ch02.check_call_text(ok.replace("12 * 34", "12 + 34")).message
    assert "could not read it" in ch02.check_call_text(ok.replace('"12 * 34"', "12 * 34")).message


def test_each_exercise_ships_not_done_and_its_solution_is_right():
    check_ships_not_done_and_solved("02")
