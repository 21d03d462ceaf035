"""Grammars for tool calls: the text a constrained reply is allowed to be, built from the schemas.

A grammar here is Lark text in llguidance's dialect. The JSON of a call comes from the same
chat-template schemas the model reads (`%json{...}` holds a JSON schema), so `required`, `enum`,
types and nesting all hold by construction. Qwen's `<tool_call>` and `</tool_call>` are special
tokens: the grammar names them by id (`<[151657]>`), never as text.

`tool_choice` takes the values the hosted APIs use:

- ``"auto"``: free text, or a call held to the schemas from the moment it starts. A call starts
  the ways the packs really start one: the `<tool_call>` token, a bare ``{`` or a ```json fence.
  Free text may not begin with one of those (nor with a space), so every opening is caught.
- ``"required"``: a call to one of the tools, in tags.
- ``{"name": "calculator"}`` (or the OpenAI form ``{"type": "function", "function": {...}}``): a
  call to that tool, in tags.
- ``"none"``: any text but the `<tool_call>` token.

Owns the grammar text and `GrammarError`. Does not compile or apply a grammar
(`kitchen.grammar.mask`) or decide when to use one (`kitchen.harness.loop`).

>>> from kitchen.tools import calculator
>>> print(call_grammar([calculator], {"name": "calculator"}).splitlines()[0])
start: tagged
"""

from __future__ import annotations

import json
from typing import Any, Literal, Sequence, Union

import llguidance

from kitchen.tools.schemas import as_schema

ToolChoice = Union[Literal["auto", "required", "none"], dict]
CHOICES = ("auto", "required", "none")
CALL_OPEN, CALL_CLOSE = 151657, 151658  # Qwen2.5's <tool_call> and </tool_call> token ids
# The JSON of a call is written the way Qwen's template writes it: ", " and ": ", no newlines.
JSON_STYLE = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}
# Free text under "auto": its first character may not open a call (nor be a space before one).
FREE_TEXT = r"/[^{`\s][\s\S]*/"
PROMPT_FORMATS = ("fenced_json", "python")  # the prompt-based formats a grammar can hold


class GrammarError(ValueError):
    """A tool choice or a schema that no grammar can be built from; the message says which."""


def choice_name(choice: ToolChoice) -> str:
    """A tool choice in words: "auto", "required", "none" or the tool's name.

    >>> choice_name({"type": "function", "function": {"name": "calculator"}})
    'calculator'
    """
    if isinstance(choice, str):
        if choice not in CHOICES:
            raise GrammarError(f"tool_choice {choice!r} is not one of {CHOICES} or {{'name': ...}}.")
        return choice
    if isinstance(choice, dict):
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        if isinstance(name, str) and name:
            return name
    raise GrammarError(f"tool_choice {choice!r} is not one of {CHOICES} or {{'name': ...}}.")


def chosen_tools(tools: Sequence, choice: ToolChoice) -> list[dict]:
    """The schemas a call may use under `choice` (all of them, or the one named)."""
    schemas = [as_schema(t) for t in tools]
    name = choice_name(choice)
    if name in CHOICES:
        return schemas
    named = [s for s in schemas if s["function"]["name"] == name]
    if not named:
        available = [s["function"]["name"] for s in schemas]
        raise GrammarError(f"tool_choice names {name!r}, which is not one of the tools: {available}.")
    return named


def call_object_schema(schema: dict) -> dict:
    """The JSON schema of one call object: this tool's name and arguments, nothing else.

    >>> from kitchen.tools import calculator
    >>> s = call_object_schema(as_schema(calculator))
    >>> s["properties"]["name"], s["required"]
    ({'const': 'calculator'}, ['name', 'arguments'])
    """
    function = schema["function"]
    parameters = dict(function.get("parameters") or {"type": "object", "properties": {}})
    parameters.setdefault("additionalProperties", False)
    definitions = {k: parameters.pop(k) for k in ("$defs", "definitions") if k in parameters}
    if definitions:  # "#/$defs/..." points at the root: the definitions move up to the call object
        parameters = json.loads(json.dumps(parameters).replace('"#/definitions/', '"#/$defs/'))
        definitions = {"$defs": {**definitions.get("definitions", {}), **definitions.get("$defs", {})}}
    return {"type": "object", "properties": {"name": {"const": function["name"]}, "arguments": parameters},
            "required": ["name", "arguments"], "additionalProperties": False, **definitions}


def json_rule(schema: dict) -> str:
    """A schema as a Lark `%json` body, written in Qwen's JSON style."""
    return "%json " + json.dumps({**schema, "x-guidance": JSON_STYLE}, ensure_ascii=False)


def calls_rule(schemas: Sequence[dict]) -> str:
    """One rule body: a call object to any of `schemas` (one `%json` per tool)."""
    if not schemas:
        raise GrammarError("A call grammar needs at least one tool; the toolbox lists none.")
    return "\n    | ".join(json_rule(call_object_schema(s)) for s in schemas)


def call_grammar(tools: Sequence, choice: ToolChoice = "required", fmt: str = "native",
                 parallel: bool = False) -> str:
    """The Lark grammar a reply is held to under `choice`, for the native format or a prompt one.

    `fmt`: "native" (Qwen's tags), "fenced_json" (a ```tool_call block) or "python" (a call in
    a ```python block); the prompt formats know "required" and a named tool only. `parallel`: a
    reply may hold several calls, one per line (tagged blocks, bare objects, or lines of a fence).
    """
    name = choice_name(choice)
    schemas = chosen_tools(tools, choice)
    grammar = _grammar_text(schemas, name, fmt, parallel)
    if grammar_error(grammar):
        _raise_for_schemas(schemas, fmt)
    return grammar


def _grammar_text(schemas: list[dict], name: str, fmt: str, parallel: bool = False) -> str:
    if fmt != "native":
        return _prompt_format_grammar(schemas, name, fmt, parallel)
    if name == "none":
        return "start: text\ntext: /[\\s\\S]*/\n"
    body = calls_rule(schemas)
    more = ' ("\\n" {})*' if parallel else ""  # more of the same, one per line
    tagged = f'tagged: <[{CALL_OPEN}]> "\\n" call "\\n" <[{CALL_CLOSE}]>'
    if name != "auto":
        return f"start: tagged{more.format('tagged')}\n{tagged}\ncall: {body}\n"
    return (f"start: tagged{more.format('tagged')} | call{more.format('call')} | fenced | free\n{tagged}\n"
            f'fenced: "```json\\n" call{more.format("call")} "\\n```"\nfree: {FREE_TEXT}\ncall: {body}\n')


def grammar_error(grammar: str) -> str | None:
    """llguidance's complaint about a grammar (None when it compiles); no tokenizer needed.

    >>> grammar_error('start: "a"') is None
    True
    """
    return llguidance.LLMatcher.validate_grammar(llguidance.LLMatcher.grammar_from_lark(grammar)) or None


def _raise_for_schemas(schemas: list[dict], fmt: str) -> None:
    """Find the tool whose schema breaks the grammar and raise a `GrammarError` naming it."""
    for schema in schemas:
        error = grammar_error(_grammar_text([schema], "required", fmt))
        if error:
            error = " ".join(line.strip() for line in error.split("\n   1 |")[0].splitlines())
            name = schema["function"]["name"]
            parameters = json.dumps(schema["function"].get("parameters"), ensure_ascii=False)
            raise GrammarError(f"The schema of tool {name!r} cannot be turned into a grammar: {error} "
                               f"(its parameters: {parameters[:300]})")
    raise GrammarError("The tools' grammar does not compile, though each tool's alone does.")


def auto_trigger(text: str, token_ids: Sequence[int]) -> str:
    """Which opening an "auto" reply took: "<tool_call> token", "bare {", "```json fence" or "free text".

    >>> auto_trigger('{"name": "calculator", "arguments": {}}', [])
    'bare {'
    """
    if token_ids and token_ids[0] == CALL_OPEN:
        return "<tool_call> token"
    if text.startswith("{"):
        return "bare {"
    if text.startswith("```json"):
        return "```json fence"
    return "free text"


def _prompt_format_grammar(schemas: list[dict], name: str, fmt: str, parallel: bool = False) -> str:
    if name in ("auto", "none"):
        raise GrammarError(f"The {fmt} format can hold a reply to 'required' or a named tool, not {name!r}.")
    more = ' ("\\n" call)*' if parallel else ""
    if fmt == "fenced_json":
        return f'start: "```tool_call\\n" call{more} "\\n```"\ncall: {calls_rule(schemas)}\n'
    if fmt == "python":
        rules = [python_call_rules(s, i) for i, s in enumerate(schemas)]
        alternatives = " | ".join(f"py{i}" for i in range(len(schemas)))
        head = (f'start: "```python\\n" call{more} "\\n```"\ncall: {alternatives}' if parallel
                else f'start: "```python\\n" ({alternatives}) "\\n```"')
        return head + "\n" + "\n".join(rules) + "\n"
    raise GrammarError(f"No grammar for the format {fmt!r}; formats: native, {', '.join(PROMPT_FORMATS)}.")


def python_call_rules(schema: dict, index: int) -> str:
    """A Python-style call of one tool: every argument by name, in the schema's order.

    Values are JSON (a JSON string, number or list is also a Python literal), booleans are
    True/False and a missing optional argument is left out.
    """
    function = schema["function"]
    parameters = function.get("parameters") or {}
    properties: dict[str, Any] = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    rules, parts = [], []
    for j, (key, sub) in enumerate(properties.items()):
        value = f"v{index}_{j}"
        rules.append(f'{value}: "True" | "False"' if sub.get("type") == "boolean" else f"{value}: {json_rule(sub)}")
        parts.append((f'"{key}=" {value}', key in required))
    parts.sort(key=lambda p: not p[1])  # required arguments first (stable: schema order kept)
    args = _python_arguments(parts)
    rules.insert(0, f'py{index}: "{function["name"]}(" {args} ")"' if args else f'py{index}: "{function["name"]}()"')
    return "\n".join(rules)


def _python_arguments(parts: list[tuple[str, bool]]) -> str:
    """Arguments in order with ", " between them; the optional ones (last) may be left out.

    >>> _python_arguments([('"a=" va', True), ('"b=" vb', False)])
    '"a=" va (", " "b=" vb)?'
    >>> _python_arguments([('"a=" va', False), ('"b=" vb', False)])
    '(("a=" va (", " "b=" vb)?) | ("b=" vb))?'
    """
    if not parts:
        return ""
    if parts[0][1]:
        return " ".join([parts[0][0]] + [f'", " {p}' if req else f'(", " {p})?' for p, req in parts[1:]])
    # Only optional arguments: the call starts with any one of them, the later ones may follow.
    starts = [" ".join([p] + [f'(", " {q})?' for q, _ in parts[i + 1:]]) for i, (p, _) in enumerate(parts)]
    return "(" + " | ".join(f"({s})" for s in starts) + ")?"
