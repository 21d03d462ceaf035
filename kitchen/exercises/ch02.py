"""Chapter 02's exercises: a tool with an enum and a default, what a tool costs in tokens, and a
call written by hand as the model writes it.

>>> from kitchen.tools import calculator
>>> check_tool_cost(calculator, 100).status
'wrong'
>>> print(check_call_text('<tool_call>\\n{"name": "calculator", "arguments": {"expression": "12 * 34"}}\\n</tool_call>'))
✓ Right (02.call_text): the harness's parser finds calculator({'expression': '12 * 34'}) in Qwen's own tags.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, Callable

from kitchen.harness.parsing import parse_tool_calls
from kitchen.tools.schemas import SchemaError, tool_schema
from kitchen.tools import calculator
from kitchen.exercises.core import Feedback, blank, not_done, right, template, wrong

HELLO = [{"role": "user", "content": "Hello!"}]


def check_enum_tool(tool: Any) -> Feedback:
    """A tool (a Python function) with one parameter limited to a few values (an enum) and one
    with a default, both visible to the model in the rendered prompt."""
    ex = "02.enum_tool"
    if blank(tool):
        return not_done(ex, "`my_tool`")
    if not callable(tool):
        return wrong(ex, f"a tool is a Python function; this is {type(tool).__name__}.")
    try:
        schema = tool_schema(tool)
    except SchemaError as err:
        return wrong(ex, f"the schema cannot be built: {err}",
                     "Every parameter needs a type hint and a line in the docstring's Args section.")
    params = schema["function"]["parameters"]
    props, required = params.get("properties", {}), set(params.get("required", []))
    enums = {name: p["enum"] for name, p in props.items() if "enum" in p}
    if not enums:
        return wrong(ex, "no parameter of the schema has an `enum`: the model is not told which values are allowed.",
                     'Annotate a parameter with Literal["a", "b"], or end its Args line with (choices: ["a", "b"]).')
    defaults = {name: p.default for name, p in inspect.signature(tool).parameters.items()
                if p.default is not inspect.Parameter.empty and name in props}
    if not defaults:
        return wrong(ex, "every parameter is required: none has a default value in the function's signature.",
                     "Give one parameter a default (unit: str = \"celsius\"); it then leaves `required`.")
    prompt = template().render(HELLO, [tool])
    missing = [name for name, values in enums.items() if json.dumps(values, ensure_ascii=False) not in prompt]
    if missing:
        return wrong(ex, f"the enum of {missing} is not in the rendered prompt.")
    unsaid = [name for name, value in defaults.items() if str(value) not in props[name].get("description", "")]
    if unsaid:
        name = unsaid[0]
        return wrong(ex, f"`{name}` has the default {defaults[name]!r} in Python, but the schema has no `default` "
                         f"and its description does not say it: the model cannot know what happens if it leaves "
                         f"`{name}` out.",
                     f"Say it in the docstring's line for `{name}` (\"… Defaults to {defaults[name]}.\"), then "
                     "look for it in model.render(messages, [my_tool]).")
    shown = ", ".join(f"{n}: one of {v}" for n, v in enums.items())
    return right(ex, f"the prompt lists {shown}, and says what {', '.join(defaults)} defaults to "
                     f"(required: {sorted(required) or 'none'}).")


def tool_cost(tool: Callable) -> int:
    """Tokens that listing `tool` adds to a one-message prompt (with the tools preamble)."""
    chat = template()
    return len(chat.encode(chat.render(HELLO, [tool]))) - len(chat.encode(chat.render(HELLO)))


def check_tool_cost(tool: Callable, tokens: Any) -> Feedback:
    """How many tokens listing `tool` adds to a prompt that lists no tool yet."""
    ex = "02.tool_cost"
    if blank(tokens):
        return not_done(ex, "`tokens`")
    if not isinstance(tokens, int):
        return wrong(ex, "give a whole number of tokens.")
    cost = tool_cost(tool)
    chat = template()
    schema_only = len(chat.encode(json.dumps(tool_schema(tool), ensure_ascii=False)))
    if tokens == cost:
        return right(ex, f"{cost} tokens, of which {schema_only} are the schema's JSON; the rest is the template's "
                         "tools preamble, paid once for the first tool. Every model call pays them again.")
    if tokens == schema_only:
        return wrong(ex, "that is the schema's JSON alone.",
                     "The first tool also brings the template's text around the tools; count the whole prompt "
                     "with the tool and without it, and subtract.")
    return wrong(ex, f"{tokens} is {'more' if tokens > cost else 'less'} than the prompt grows by.",
                 "len(model.encode(model.render(messages, [tool]))) minus the same without tools.")


def check_call_text(text: Any) -> Feedback:
    """The exact text Qwen writes to call the calculator on "12 * 34"."""
    ex = "02.call_text"
    if blank(text):
        return not_done(ex, "`text`")
    if not isinstance(text, str):
        return wrong(ex, "the call is text: write it as a string.")
    schemas = [tool_schema(calculator)]
    found = parse_tool_calls(text, tools=schemas)
    if found.errors:
        return wrong(ex, f"the parser found an attempt but could not read it: {found.errors[0].message}",
                     'Inside the tags goes one JSON object: {"name": ..., "arguments": {...}} with double quotes.')
    if not found.calls:
        return wrong(ex, "the parser finds no call in this text.",
                     "Look at the end of the rendered system prompt: it shows the form.")
    call = found.calls[0]
    if "<tool_call>" not in text or "</tool_call>" not in text:
        return wrong(ex, "the JSON is right, but Qwen's template asks for it between <tool_call> and </tool_call>.",
                     "The harness stops generating at </tool_call>: that tag is what it waits for.")
    if call.name != "calculator":
        return wrong(ex, f"the call names {call.name!r}; the tool is called 'calculator'.")
    if set(call.arguments) != {"expression"}:
        return wrong(ex, f"the arguments are {sorted(call.arguments)}; the calculator takes one, `expression`.")
    expression = call.arguments["expression"]
    if not isinstance(expression, str) or calculator(expression) != "408":
        return wrong(ex, f"the expression {expression!r} does not compute 12 * 34.",
                     "The calculator takes the expression as a string.")
    return right(ex, f"the harness's parser finds calculator({call.arguments}) in Qwen's own tags.")
