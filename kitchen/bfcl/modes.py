"""The three ways chapter 08 asks a BFCL question, each one the series already teaches.

- ``native``: the functions go through Qwen's chat template as tools (chapter 02); the calls are
  found by the harness's parser in any format it accepts (chapter 04: tags, bare or fenced JSON).
- ``prompt``: the functions are described in BFCL's own system prompt for prompt-mode models,
  which asks for ``[func(a=1), func2(b=2)]``; the calls are read with `ast` by BFCL's own decoder,
  as BFCL reads a prompt-mode model's reply (any function name and argument reaches the checker;
  a reply that is not a list of calls is no call).
- ``constrained``: native, with chapter 07's grammar under ``tool_choice="auto"`` and several calls
  allowed, so a call is valid by construction but the model may still decline to call.

Each mode turns a case into a `Request` (messages, tools, grammar) and reads the reply's calls.
Does not run a model (`kitchen.bfcl.runner`) or grade (`kitchen.bfcl.grading`).
"""

from __future__ import annotations

import functools
import json
import sys
import types
from dataclasses import dataclass
from typing import Literal, get_args

from kitchen.grammar.calls import GrammarError, call_grammar
from kitchen.harness.parsing import NATIVE_FORMATS, ParseError, ParseResult, ToolCall, parse_tool_calls
from kitchen.bfcl.data import Case, described, tool_schemas

Mode = Literal["native", "prompt", "constrained"]
MODES: tuple[Mode, ...] = get_args(Mode)


@dataclass
class Request:
    """What the model is given for one case: messages, tools for the chat template (None in
    prompt mode), a grammar (constrained mode) and, if no grammar could be built, why."""

    messages: list[dict]
    tools: list[dict] | None
    grammar: str | None = None
    grammar_error: str = ""


def bfcl_system_prompt(case: Case) -> str:
    """BFCL's default system prompt for prompt-mode models, put together from the package's own
    templates (classic style, plain text, Python calls without a tag, functions as JSON), as its
    `formulate_system_prompt` does for its default format."""
    from bfcl_eval.constants import default_prompts as p

    style = p.PROMPT_STYLE_TEMPLATES["classic"]
    return p.PROMPT_TEMPLATE_MAPPING["plaintext"].format(
        persona=style["persona"], task=style["task"],
        tool_call_format=style["tool_call_no_tag"].format(output_format=p.OUTPUT_FORMAT_MAPPING["python"],
                                                          param_types=p.PARAM_TYPE_MAPPING["python"]),
        multiturn_behavior=style["multiturn_behavior"],
        available_tools=style["available_tools"].format(
            format="json", functions=json.dumps(described(case.functions, case.category), indent=4)))


def request(case: Case, mode: Mode) -> Request:
    """The messages, tools and grammar for `case` in `mode`."""
    if mode == "prompt":
        return Request([{"role": "system", "content": bfcl_system_prompt(case)}, *case.messages], None)
    tools = tool_schemas(case)
    if mode == "native":
        return Request(list(case.messages), tools)
    if mode == "constrained":
        try:
            return Request(list(case.messages), tools, call_grammar(tools, "auto", parallel=True))
        except GrammarError as err:  # decoded freely, and the case's line says why
            return Request(list(case.messages), tools, None, str(err))
    raise ValueError(f"Unknown mode {mode!r}; the modes are {MODES}.")


def find_calls(case: Case, mode: Mode, text: str) -> ParseResult:
    """The calls in a reply, read the way `mode` asks for them (never raises)."""
    if mode == "prompt":
        return bfcl_decode(text)
    return parse_tool_calls(text, NATIVE_FORMATS, tools=tool_schemas(case))


def bfcl_decode(text: str) -> ParseResult:
    """A prompt-mode reply read by BFCL's own decoder (`default_decode_ast_prompting`): the whole
    reply must be a Python list of calls (or one call); otherwise there is no call and one
    ``bad_call`` error says why.

    >>> [(c.name, c.arguments) for c in bfcl_decode("[math.hypot(x=3, y=4)]").calls]
    [('math.hypot', {'x': 3, 'y': 4})]
    >>> bfcl_decode("The answer is 5.").errors[0].kind
    'bad_call'
    """
    try:
        decoded = _bfcl_decoder()(text)
        calls = [ToolCall(name, dict(arguments), "python", text, 0, len(text))
                 for item in decoded for name, arguments in item.items()]
    except Exception as err:  # BFCL's decoder raises on anything that is not a list of calls
        error = ParseError("bad_call", f"BFCL's decoder: {type(err).__name__}: {err}", text, "python", 0, len(text))
        return ParseResult([], [error], text)
    return ParseResult(calls, [], "")


def _no_parser(language: str):
    def parse(source_code: str):
        raise SyntaxError(f"{language} calls need tree-sitter, which this project does not install (it asks Python only)")

    return parse


@functools.cache
def _bfcl_decoder():
    """BFCL's `default_decode_ast_prompting`, imported once. Its module also imports BFCL's Java and
    JavaScript parsers, which need tree-sitter (a compiled package without wheels for every Python);
    the chapter asks Python questions only, so where tree-sitter is missing each parser is a stand-in
    that refuses its language."""
    for language, name, function in (("Java", "java_parser", "parse_java_function_call"),
                                      ("JavaScript", "js_parser", "parse_javascript_function_call")):
        module = f"bfcl_eval.model_handler.parser.{name}"
        try:
            __import__(module)
        except ImportError:
            stand_in = types.ModuleType(module)
            setattr(stand_in, function, _no_parser(language))
            sys.modules[module] = stand_in
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting

    return default_decode_ast_prompting
