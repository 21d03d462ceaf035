"""Protocols: how tools are described to the model, how its calls are found, how results go back.

Owns `NativeProtocol` (Qwen's chat template and `<tool_call>` blocks, results as `tool`
messages) and the prompt-based ones for a model without native tool calling (`FencedJSONProtocol`,
`PythonCallProtocol`, `CallTagProtocol`: a system prompt that explains one format, its calls found
in the text, results in user messages). With ``robust=True`` each accepts every format the parser
knows; with ``robust=False`` only its own, so a drifted call silently becomes the answer.

Does not parse text (`kitchen.harness.parsing`), write schemas as prompt text (`kitchen.harness.signatures`), run
tools (`kitchen.harness.toolbox`) or loop (`kitchen.harness.loop`).

>>> from kitchen.tools.schemas import tool_schema
>>> def shout(text: str) -> str:
...     '''Make text loud.
...
...     Args:
...         text: What to shout, e.g. "hello".
...     '''
>>> print(CallTagProtocol().write_call(tool_schema(shout), {"text": "hello"}))
<call shout>hello</call>
"""

from __future__ import annotations

import json
from typing import Sequence

from kitchen.harness.parsing import FORMATS, NATIVE_FORMATS, ParseResult, parse_tool_calls
from kitchen.harness.signatures import (example_arguments, plain_parameter, python_docstring, python_literal,
                          python_signature, tool_entry, tool_function, tool_parameters)
from kitchen.harness.signatures import example_value, type_words  # noqa: F401  (re-exported, were defined here)
from kitchen.harness.toolbox import ToolResult

Prepared = tuple[list[dict], list[dict] | None]


class Protocol:
    """Interface of a tool-calling protocol."""

    name = "protocol"
    stop: tuple[str, ...] = ()

    def prepare(self, messages: Sequence[dict], schemas: list[dict]) -> Prepared:
        """The messages the model reads, and the tools to hand to the chat template (or None)."""
        raise NotImplementedError

    def detect(self, text: str, schemas: list[dict]) -> ParseResult:
        raise NotImplementedError

    def turn_messages(self, text: str, parsed: ParseResult, results: list[ToolResult]
                      ) -> list[dict]:
        """What is appended after a step: the model's own turn, then the results."""
        raise NotImplementedError


ANSWER_NOTE = ("This is the tool's result. Now answer the user's question in a sentence; "
               "do not call the same tool again.")
# After a failed call the harness asks for a fix, not an answer: an answer right after an error
# can only be made up.
ERROR_NOTE = ("The call failed. Read the error, then call the tool again with corrected arguments "
              "(or call another tool); answer only once a call has worked.")


class NativeProtocol(Protocol):
    """Qwen's own format, through its chat template.

    - `formats`: the parser formats that count as a call: by default `<tool_call>` blocks and bare
      or fenced JSON (the offline packs often drop the tags).
    - `keep_raw_text`: append the model's turn as it wrote it, instead of re-rendered in Qwen's
      format.
    - `result_note`: a sentence added after every tool result. The small packs, given a bare
      result, call the tool again and again until the cap; `ANSWER_NOTE` (the default) makes them
      answer, at the price of ending multi-step tasks early. Chapter 03 shows both.
    - `error_note`: the sentence added after a failed call instead (`ERROR_NOTE`: fix the call).
    """

    name = "native"
    stop = ("</tool_call>",)

    def __init__(self, formats: Sequence[str] = NATIVE_FORMATS, keep_raw_text: bool = False,
                 result_note: str = ANSWER_NOTE, error_note: str = ERROR_NOTE) -> None:
        self.formats = tuple(formats)
        self.keep_raw_text = keep_raw_text
        self.result_note, self.error_note = result_note, error_note

    def prepare(self, messages: Sequence[dict], schemas: list[dict]) -> Prepared:
        return list(messages), (schemas or None)

    def detect(self, text: str, schemas: list[dict]) -> ParseResult:
        return parse_tool_calls(text, self.formats, tools=schemas)

    def turn_messages(self, text: str, parsed: ParseResult, results: list[ToolResult]
                      ) -> list[dict]:
        if self.keep_raw_text:
            # The model's own text as its turn: the longest prefix for KV-cache reuse.
            out = [{"role": "assistant", "content": text}]
        else:
            # The calls re-rendered in Qwen's own format, whatever the model wrote: the
            # conversation then looks like the ones the model was trained on.
            out = [{"role": "assistant", "content": parsed.prose,
                    "tool_calls": [c.to_message_call() for c in parsed.calls]}]
        out += [{"role": "tool", "name": r.name,
                 "content": _with_note(r.content, note_for(self, [r]))} for r in results]
        return out


def note_for(protocol: NativeProtocol | PromptProtocol, results: Sequence[ToolResult]) -> str:
    """The result note if every call of a step worked, else the error note."""
    return protocol.result_note if all(r.ok for r in results) else protocol.error_note


def _with_note(text: str, note: str) -> str:
    return f"{text}\n\n{note}" if note else text


NATIVE = NativeProtocol()


# --------------------------------------------------------------------------- prompt-based protocols

DEFAULT_SYSTEM = "You are a helpful assistant."


class PromptProtocol(Protocol):
    """A tool-calling protocol done entirely in text, for a model with no native tool calling.

    A format fills in a few pieces: `name`, `own_formats` (the `kitchen.harness.parsing` formats of its
    strict detector), `stop`, `instructions` (how to call, how results come back), `write_call`
    (one call as the format writes it) and `result_text` (one result as the model reads it). It
    may also override `describe_tool` and `catalogue`. Wherever a schema is expected, any form
    `kitchen.tools.schemas.as_schema` accepts will do (the chat-template view, the MCP view, a function).

    - `robust`: detect every format the parser knows (True), or only this protocol's own (False).
    - `result_note`, `error_note`: sentences after the results, as in `NativeProtocol` (same
      defaults, so protocols can be compared on equal terms).
    - `system`: the system prompt used when the conversation has none; the tools section follows it.
    """

    name = "prompt"
    own_formats: tuple[str, ...] = ()
    instructions = ""

    def __init__(self, robust: bool = True, result_note: str = ANSWER_NOTE,
                 system: str = DEFAULT_SYSTEM, error_note: str = ERROR_NOTE) -> None:
        self.robust = robust
        self.formats = tuple(FORMATS) if robust else tuple(self.own_formats)
        self.result_note, self.error_note = result_note, error_note
        self.system = system

    def __repr__(self) -> str:
        return f"{type(self).__name__}(robust={self.robust})"

    # -- what the model reads

    def write_call(self, schema: dict, arguments: dict) -> str:
        """One call of the tool `schema` with `arguments`, written the way this format asks for."""
        raise NotImplementedError

    def result_text(self, result: ToolResult) -> str:
        """One tool result, wrapped the way this format promises."""
        raise NotImplementedError

    def describe_tool(self, schema: dict) -> str:
        """One tool's entry in the list of tools: its name, description and parameters."""
        return tool_entry(schema)

    def catalogue(self, schemas: Sequence[dict]) -> str:
        """Every tool's entry, one after the other."""
        return "\n\n".join(self.describe_tool(s) for s in schemas)

    def tools_prompt(self, schemas: Sequence[dict]) -> str:
        """The system prompt's tools section: how to call, an example, the tools."""
        first = schemas[0]
        example = self.write_call(first, example_arguments(first))
        return (f"# Tools\n\n{self.instructions}\n\nFor example:\n{example}\n\n"
                f"The tools you can use:\n\n{self.catalogue(schemas)}")

    def system_prompt(self, schemas: Sequence[dict], system: str | None = None) -> str:
        """The exact system message the model reads: `system` (or the protocol's default), a blank
        line, then `tools_prompt`. With no tools it is just `system`."""
        base = self.system if system is None else system
        if not schemas:
            return base
        return f"{base}\n\n{self.tools_prompt(schemas)}" if base else self.tools_prompt(schemas)

    # -- the Protocol interface

    def prepare(self, messages: Sequence[dict], schemas: list[dict]) -> Prepared:
        """The conversation with the tools in its system message; no tools for the template."""
        messages = list(messages)
        if not schemas:
            return messages, None
        if (messages and messages[0].get("role") == "system"
                and isinstance(messages[0].get("content"), str)):
            first = {**messages[0], "content": self.system_prompt(schemas, messages[0]["content"])}
            return [first] + messages[1:], None
        return [{"role": "system", "content": self.system_prompt(schemas)}] + messages, None

    def detect(self, text: str, schemas: list[dict]) -> ParseResult:
        return parse_tool_calls(text, self.formats, tools=schemas)

    def turn_messages(self, text: str, parsed: ParseResult, results: list[ToolResult]
                      ) -> list[dict]:
        """The model's text up to its last call, then one user message with the results."""
        results_text = "\n\n".join(self.result_text(r) for r in results)
        body = _with_note(results_text, note_for(self, results))
        return [{"role": "assistant", "content": self.turn_text(text, parsed)},
                {"role": "user", "content": body}]

    def turn_text(self, text: str, parsed: ParseResult) -> str:
        """`text` cut after its last call (and the stop string that closes it, such as a fence),
        so that a result the model went on to invent never stays in the conversation. When
        generation stopped at a stop string, nothing is cut."""
        ends = [h.end for h in [*parsed.calls, *parsed.errors] if h.end > 0]
        if not ends:
            return text
        end = max(ends)
        for stop in self.stop:
            at = text.find(stop, max(0, end - len(stop)))
            if at != -1 and not text[end:at].strip():
                end = max(end, at + len(stop))
        return text[:end]


class FencedJSONProtocol(PromptProtocol):
    """Calls as JSON in a ```tool_call block; results in a ```tool_result block.

    >>> from kitchen.tools import calculator
    >>> from kitchen.tools.schemas import tool_schema
    >>> print(FencedJSONProtocol().write_call(tool_schema(calculator), {"expression": "2 + 2"}))
    ```tool_call
    {"name": "calculator", "arguments": {"expression": "2 + 2"}}
    ```
    """

    name = "fenced_json"
    own_formats = ("tool_call_fence",)
    # The object's closing brace, then the fence: the opening fence cannot match this.
    stop = ("}\n```",)
    instructions = (
        "You can use the tools listed below. To use one, write a ```tool_call block that holds a "
        'single JSON object with the keys "name" (the tool) and "arguments" (an object of its '
        "arguments), then stop: write nothing after the block, and never write a tool's result "
        "yourself. The application runs the tool and sends you what it returned in the next "
        "message, inside a ```tool_result block. If you need no tool, or once you have what you "
        "need, answer the user in plain words, without a block.")

    def write_call(self, schema: dict, arguments: dict) -> str:
        name = tool_function(schema)["name"]
        call = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
        return f"```tool_call\n{call}\n```"

    def result_text(self, result: ToolResult) -> str:
        return f"```tool_result\n{result.content}\n```"


class PythonCallProtocol(PromptProtocol):
    """Calls as Python in a ```python block; the tools shown as Python signatures with docstrings.

    The call is read with `ast` by the parser's ``python`` format, never run as Python: only plain
    values are accepted, and positional values are mapped through the schema's parameter order.

    >>> from kitchen.tools import search_rhymes
    >>> from kitchen.tools.schemas import tool_schema
    >>> PythonCallProtocol().signature(tool_schema(search_rhymes))
    'def search_rhymes(query: str, limit: int | None = None):'
    """

    name = "python"
    own_formats = ("python",)
    stop = (")\n```",)
    instructions = (
        "You can use the tools listed below; they are written as Python functions. To use one, "
        "write a single call in a ```python block, with a name for every argument and plain "
        "values only (strings in double quotes, numbers, True, False, None, lists, dicts), then "
        "stop: write nothing after the block, and never write a tool's result yourself. The call "
        "is not run as Python: the application reads it, runs the tool, and sends you what it "
        "returned in the next message, inside an ```output block. If you need no tool, or once you "
        "have what you need, answer the user in plain words, without a block.")

    def write_call(self, schema: dict, arguments: dict) -> str:
        args = ", ".join(f"{k}={python_literal(v)}" for k, v in arguments.items())
        return f"```python\n{tool_function(schema)['name']}({args})\n```"

    def result_text(self, result: ToolResult) -> str:
        return f"```output\n{result.content}\n```"

    def signature(self, schema: dict) -> str:
        """The ``def`` line of a tool: its parameters with Python types, optional ones `= None`."""
        return python_signature(schema)

    def describe_tool(self, schema: dict) -> str:
        return f"{self.signature(schema)}\n{python_docstring(schema)}"

    def catalogue(self, schemas: Sequence[dict]) -> str:
        return "```python\n" + "\n\n\n".join(self.describe_tool(s) for s in schemas) + "\n```"


class CallTagProtocol(PromptProtocol):
    """The simplified form ``<call calculator>1234 * 5678</call>``; results as
    ``<result name>...</result>``.

    The body is the value of the tool's one plain parameter (see `plain_parameter`), or a JSON
    object of arguments when there are several.

    >>> from kitchen.tools import search_rhymes
    >>> from kitchen.tools.schemas import tool_schema
    >>> arguments = {"query": "star", "limit": 1}
    >>> print(CallTagProtocol().write_call(tool_schema(search_rhymes), arguments))
    <call search_rhymes>{"query": "star", "limit": 1}</call>
    """

    name = "call_tag"
    own_formats = ("call_tag",)
    stop = ("</call>",)
    instructions = (
        "You can use the tools listed below. To use one, write <call NAME>INPUT</call>, with the "
        "tool's name in place of NAME, then stop: write nothing after it, and never write a tool's "
        "result yourself. INPUT is the value of the tool's main argument as plain text, without "
        "quotes; to give more than one argument, write them as a JSON object instead. The "
        "application runs the tool and sends you what it returned in the next message, as "
        "<result NAME>...</result>. If you need no tool, or once you have what you need, answer "
        "the user in plain words, without tags.")

    def write_call(self, schema: dict, arguments: dict) -> str:
        name = tool_function(schema)["name"]
        plain = plain_parameter(schema)
        value = arguments.get(plain) if list(arguments) == [plain] else None
        if not arguments:
            body = ""
        elif isinstance(value, str) and not value.lstrip().startswith("{"):
            body = value
        else:
            body = json.dumps(arguments, ensure_ascii=False)
        return f"<call {name}>{body}</call>"

    def result_text(self, result):
        opener = "<result>" if result.kind == "parse_error" else f"<result {result.name}>"  # no call: no name
        return f"{opener}{result.content}</result>"

    def describe_tool(self, schema: dict) -> str:
        properties, _ = tool_parameters(schema)
        plain = plain_parameter(schema)
        if not properties:
            usage = "INPUT: nothing, <call NAME></call>."
        elif len(properties) == 1:
            usage = f'INPUT: the value of "{plain}".'
        else:
            usage = f'INPUT: the value of "{plain}", or a JSON object of arguments.'
        usage = usage.replace("NAME", tool_function(schema).get("name", "?"))
        return f"{super().describe_tool(schema)}\n{usage}"


PROTOCOLS: dict[str, Protocol] = {
    "native": NATIVE,
    "fenced_json": FencedJSONProtocol(),
    "python": PythonCallProtocol(),
    "call_tag": CallTagProtocol(),
}
"""One protocol of each kind, by name (the prompt-based ones with robust detection)."""
