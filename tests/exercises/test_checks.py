"""Every exercise check: a right answer is accepted, wrong ones are rejected with the message a
learner would see, and an exercise left as shipped (`...`) says "not done yet" without an error."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace
from typing import Literal

from kitchen.exercises import ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08
from kitchen.mcp import WireLog
from kitchen.harness.parsing import parse_tool_calls
from kitchen.tools.schemas import tool_schema
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator

# A reply of the 1.5B pack to 1234 × 5678 worked on paper (chapter 01's recording): unshifted rows.
PAPER = "  1234\nx 5678\n------\n  9872\n  8638\n  7404\n  6170\n------\n 32084"


def test_every_check_says_not_done_for_the_shipped_cell():
    shipped = [ch01.check_digit_tokens(...), ch01.check_partial_rows(12, 34, ...),
               ch01.check_first_wrong_row(PAPER, 1234, 5678, ...), ch02.check_enum_tool(...),
               ch02.check_tool_cost(calculator, ...), ch02.check_call_text(...), ch03.check_loop(...),
               ch03.check_tool_message(...), ch04.check_call_tag_parser(...), ch04.check_call_tag_text(...),
               ch05.check_tools_call_frame(...), ch05.check_session_order(...), ch06.check_prediction(...),
               ch06.check_grades(...), ch07.check_grammar(...), ch07.check_tool_choice(...),
               ch08.check_verdicts(...), ch08.check_accuracy(...)]
    assert all(f.status == "not done" for f in shipped)
    assert str(shipped[0]).startswith("… Not done yet (01.digit_tokens): replace the `...`")


# -- chapter 01 -------------------------------------------------------------------------------


def test_digit_tokens():
    assert ch01.check_digit_tokens(list("7006652")).right
    whole = ch01.check_digit_tokens(["7006652"])
    assert whole.status == "wrong" and "never sees 7006652 as one symbol" in whole.message
    groups = ch01.check_digit_tokens(["7", "006", "652"])
    assert groups.status == "wrong" and "longest 3 digits" in groups.message
    assert "join to '70'" in ch01.check_digit_tokens(["7", "0"]).message


def test_partial_rows():
    assert ch01.check_partial_rows(1234, 5678, [9872, 86380, 740400, 6170000]).right
    unshifted = ch01.check_partial_rows(1234, 5678, [9872, 8638, 7404, 6170])
    assert unshifted.status == "wrong" and "row 2 (the digit 7, worth 70) has the right digits but not its place" \
        in unshifted.message
    wrong_digits = ch01.check_partial_rows(1234, 5678, [9872, 86381, 740400, 6170000])
    assert "row 2 (the digit 7, worth 70) is not 1,234 × 70" in wrong_digits.message
    assert "there are 4 rows; you wrote 2" in ch01.check_partial_rows(1234, 5678, [1, 2]).message


def test_first_wrong_row_on_a_reply_with_a_wrong_row():
    reply = "  1234\nx 5678\n------\n  9872\n 86381\n740400\n6170000\n------\n7006653"
    assert ch01.check_first_wrong_row(reply, 1234, 5678, row=2, should_be=86380).right
    assert ch01.check_first_wrong_row(reply, 1234, 5678, row=2, should_be=8638).right  # the digits, unshifted
    not_it = ch01.check_first_wrong_row(reply, 1234, 5678, row=1, should_be=9872)
    assert not_it.status == "wrong" and "row 1 is not the first row the checker marks wrong" in not_it.message
    assert ch01.check_first_wrong_row(SimpleNamespace(text=reply), 1234, 5678, row=2, should_be=86380).right
    assert "`mine`" in ch01.check_first_wrong_row(..., 1234, 5678, row=..., should_be=...).message
    value = ch01.check_first_wrong_row(reply, 1234, 5678, row=2, should_be=86381)
    assert value.status == "wrong" and "86,381 is not what it should have been" in value.message


def test_first_wrong_row_without_rows_or_without_a_wrong_row():
    no_rows = ch01.check_first_wrong_row("1234 × 5678 = 7006652.", 1234, 5678, row=1, should_be=1)
    assert no_rows.status == "wrong" and "no rows of long multiplication" in no_rows.message
    assert ch01.check_first_wrong_row(PAPER, 1234, 5678, row=0).right  # unshifted rows hold the right digits
    assert "marks no row wrong" in ch01.check_first_wrong_row(PAPER, 1234, 5678, row=3, should_be=7404).message


# -- chapter 02 -------------------------------------------------------------------------------


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


# -- chapter 03 -------------------------------------------------------------------------------


def good_loop(model, question, tools, max_steps=5):
    """The chapter's loop, as a learner would type it."""
    schemas = [tool_schema(f) for f in tools]
    by_name = {f.__name__: f for f in tools}
    messages = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        reply = model.generate(messages, schemas, stop=["</tool_call>"])
        parsed = parse_tool_calls(reply.text, tools=schemas)
        if not parsed.found:
            return reply.text
        messages.append({"role": "assistant", "content": reply.text})
        for call in parsed.calls:
            if call.name not in by_name:
                result = f"Error: there is no tool {call.name!r}"
            else:
                try:
                    result = json.dumps(by_name[call.name](**call.arguments))
                except Exception as err:
                    result = f"Error: {type(err).__name__}: {err}"
            messages.append({"role": "tool", "content": result})
        for error in parsed.errors:
            messages.append({"role": "tool", "content": f"Error: {error.message}"})
    return "(gave up)"


def trusting_loop(model, question, tools, max_steps=5):
    """No cap, no error handling: every tool exists, every call is well formed."""
    by_name = {f.__name__: f for f in tools}
    messages = [{"role": "user", "content": question}]
    while True:
        reply = model.generate(messages, tools, stop=["</tool_call>"])
        parsed = parse_tool_calls(reply.text, tools=tools)
        if not parsed.calls:
            return reply.text
        messages.append({"role": "assistant", "content": reply.text})
        for call in parsed.calls:
            messages.append({"role": "tool", "content": json.dumps(by_name[call.name](**call.arguments))})


def test_loop():
    assert ch03.check_loop(good_loop).right
    trusting = ch03.check_loop(trusting_loop)
    assert trusting.status == "wrong"
    assert "an unknown tool: it raised KeyError" in trusting.message
    assert "the cap: the model was called 13 times with max_steps=3" in trusting.message
    assert "a tool that raises: it raised ZeroDivisionError" in trusting.message
    forgetful = ch03.check_loop(lambda model, question, tools, max_steps: "I did not ask the model.")
    assert "a plain answer: it returned 'I did not ask the model.', not the model's final answer" in forgetful.message


def test_tool_message():
    assert ch03.check_tool_message({"role": "tool", "content": "408"}).right
    assert "as if the user said it" in ch03.check_tool_message({"role": "user", "content": "408"}).message
    assert "the template knows no role 'function'" in ch03.check_tool_message({"role": "function", "content": "408"}).message
    assert "carry the result" in ch03.check_tool_message({"role": "tool", "content": "done"}).message


# -- chapter 04 -------------------------------------------------------------------------------


def test_real_replies_come_from_the_committed_comparison():
    replies = ch04.real_replies()
    assert len(replies) == 10 and any("<call search_rhymes>" in text for text, _ in replies)
    assert all("Qwen2.5-Coder" in where for _, where in replies)


def test_call_tag_parser():
    assert ch04.check_call_tag_parser(ch04.reference_parse).right

    def greedy(text):
        return [(m.group(1), m.group(2)) for m in re.finditer(r"<call (\w+)>(.*)</call>", text)]

    result = ch04.check_call_tag_parser(greedy)
    assert result.status == "wrong"
    assert "two calls in one reply: expected [('calculator', '1 + 1'), ('calculator', '2 + 2')]" in result.message
    assert "an input on its own lines: expected [('calculator', '12 * 3')], got []" in result.message

    def naive(text):
        return [(text.split("<call ")[1].split(">")[0], text.split(">")[1].split("</call")[0])]

    assert "an empty reply: it raised IndexError" in ch04.check_call_tag_parser(naive).message


def test_call_tag_parser_flags_a_parser_that_stalls():
    def backtracking(text):
        return [(m.group(1), m.group(2).strip())
                for m in re.finditer(r"<call\s+([A-Za-z_][\w-]*)\s*>(.*?)</call>", text, re.DOTALL)]

    result = ch04.check_call_tag_parser(backtracking)
    assert result.status == "wrong" and "3,000 opening tags and no end: it took" in result.message


def test_call_tag_text():
    assert ch04.check_call_tag_text('<call search_rhymes>{"query": "star", "limit": 1}</call>').right
    assert "the limit is left out" in ch04.check_call_tag_text("<call search_rhymes>star</call>").message
    assert "as a python call" in ch04.check_call_tag_text('search_rhymes("star")').message
    assert "finds no call" in ch04.check_call_tag_text("Search the rhymes for star, please.").message


# -- chapter 05 -------------------------------------------------------------------------------

FRAME = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
         "params": {"name": "calculator", "arguments": {"expression": "12 * 34"}}}


def test_tools_call_frame_is_sent_to_the_real_server():
    wire = WireLog()
    feedback = ch05.check_tools_call_frame(FRAME, wire=wire)
    assert feedback.right and '"text": "408"' in feedback.message
    sent = [f.message for f in wire if f.direction == "→" and f.method == "tools/call"]
    assert sent == [FRAME]
    typo = ch05.check_tools_call_frame({**FRAME, "params": {"name": "calculator", "arguments": {"expr": "12 * 34"}}})
    assert typo.status == "wrong" and "the tool ran and reported an error" in typo.message
    unknown = ch05.check_tools_call_frame({**FRAME, "params": {"name": "calc", "arguments": {}}})
    assert "protocol error" in unknown.message and "-32602" in unknown.message


def test_tools_call_frame_rejected_before_sending():
    assert "a notification" in ch05.check_tools_call_frame({k: v for k, v in FRAME.items() if k != "id"}).message
    assert "this is not JSON" in ch05.check_tools_call_frame("{'jsonrpc': '2.0'}").message
    assert "-32601" in ch05.check_tools_call_frame({**FRAME, "method": "tools/run"}).message


def test_session_order():
    assert ch05.check_session_order(ch05.OPENING).right
    assert "a server answers nothing else" in ch05.check_session_order(["tools/list", "initialize"]).message
    late = ch05.check_session_order(["initialize", "tools/list", "notifications/initialized", "tools/call"])
    assert "says it is ready before anything else" in late.message
    blind = ch05.check_session_order(["initialize", "notifications/initialized", "tools/call", "tools/list"])
    assert "cannot call a tool it has not been told about" in blind.message


# -- chapter 06 -------------------------------------------------------------------------------


def test_prediction():
    k, n = ch06.measured()
    truth = 100 * k / n
    assert ch06.check_prediction(truth).right
    high = ch06.check_prediction(min(100, truth + 40))
    assert high.status == "wrong" and "higher than what the sweep measured" in high.message
    assert "a number from 0 to 100" in ch06.check_prediction(250).message


def test_grades():
    assert len(ch06.replies_to_grade()) == 3 and "(96 of 96 tokens)" in ch06.replies_to_grade()[2]
    assert ch06.check_grades(["right", "wrong", "cut off"]).right
    partial = ch06.check_grades(["right", "wrong", "wrong"])
    assert partial.status == "wrong" and "reply 3 ran to the end of its 96-token budget" in partial.message
    assert "reply 1 is not wrong" in ch06.check_grades(["wrong", "wrong", "cut off"]).message


# -- chapter 07 -------------------------------------------------------------------------------

TINY = r"""
start: <[151657]> "\n" "{\"name\": \"calculator\", \"arguments\": {\"expression\": \"" EXPR "\"}}" "\n" <[151658]>
EXPR: /[0-9 +\-*\/().]{1,40}/
"""  # chapter 07's grammar: any mix of the characters
TWO_NUMBERS = TINY.replace(r"/[0-9 +\-*\/().]{1,40}/", r"/[0-9]{1,12} ?[+\-*\/] ?[0-9]{1,12}/")


def test_grammar():
    assert ch07.check_grammar(TWO_NUMBERS).right
    chapter = ch07.check_grammar(TINY)
    assert chapter.status == "wrong" and "a call with brackets: it lets it through" in chapter.message
    assert "a call on three numbers: it lets it through" in chapter.message
    loose = ch07.check_grammar(TINY.replace(r"/[0-9 +\-*\/().]{1,40}/", r'/[^"]{1,40}/'))
    assert loose.status == "wrong" and "a call with letters in the expression: it lets it through" in loose.message
    anything = ch07.check_grammar("start: /(.|\\n)*/")
    assert "a plain-text answer: it lets it through" in anything.message


def test_tool_choice():
    assert ch07.check_tool_choice(ch07.CHOICES).right
    assert ch07.check_tool_choice({"none": "text", "auto": ..., "required": ...}).status == "not done"
    assert "not 'either' for 'none'" in ch07.check_tool_choice({**ch07.CHOICES, "none": "either"}).message
    assert "give a dict" in ch07.check_tool_choice({"auto": "call"}).message


# -- chapter 08 -------------------------------------------------------------------------------


def test_verdicts_come_from_bfcls_checker():
    truth = [v.valid for v in ch08.verdicts()]
    assert truth == [True, False, False, False, True]
    assert ch08.check_verdicts(truth).right
    trusting = ch08.check_verdicts([True] * 5)
    assert "call 2 {'base': '10', 'height': 5}: the checker rejects it (Incorrect type" in trusting.message
    assert "give 5 booleans" in ch08.check_verdicts([True]).message


def test_accuracy():
    truth = ch08.accuracy("0.5b", "native", "int8", "parallel")
    assert ch08.check_accuracy(round(truth, 1)).right
    assert "looks like a fraction" in ch08.check_accuracy(truth / 100).message
    assert "is not what the committed lines give" in ch08.check_accuracy(truth + 10).message

