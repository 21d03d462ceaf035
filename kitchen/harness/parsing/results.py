"""What the tool-call parser gives back: the calls, the failed attempts, the prose; and its names.

It owns the public result types (`ToolCall`, `ParseError`, `ParseResult`) and the names of the
formats and error kinds. It does not find anything in a text: the scanners and `parse_tool_calls`
do, all of them in `kitchen.harness.parsing`, which re-exports everything here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

FORMATS = ("qwen", "json", "tool_call_fence", "python", "call_tag")
NATIVE_FORMATS = ("qwen", "json")

ERROR_KINDS = (
    "malformed_json",      # the text of a call is not valid JSON
    "truncated",           # the call stops before it is complete (generation cut off)
    "missing_name",        # no tool name, or a name that is not a string
    "bad_arguments",       # arguments that are not a JSON object (or a string holding one)
    "not_literal",         # a Python-style argument that is code, not a plain value
    "bad_call",            # a Python-style call that cannot be read as one
    "unknown_parameter",   # a Python-style keyword the tool does not have
    "too_many_arguments",  # more positional values than the tool has parameters
    "internal_error",      # a bug in the parser (never expected; the parser stays up anyway)
)


@dataclass
class ToolCall:
    """One call found in the text."""

    name: str
    arguments: dict
    format: str
    raw: str
    start: int
    end: int

    def to_message_call(self) -> dict[str, Any]:
        """The call as an item of an assistant message's ``tool_calls`` (what Qwen's template
        accepts).

        >>> ToolCall("f", {"x": 1}, "json", '{"name": "f", "arguments": {"x": 1}}', 0, 36
        ...          ).to_message_call()
        {'type': 'function', 'function': {'name': 'f', 'arguments': {'x': 1}}}
        """
        arguments = copy.deepcopy(self.arguments)
        return {"type": "function", "function": {"name": self.name, "arguments": arguments}}


@dataclass
class ParseError:
    """A failed attempt at a call, with a message the model can act on."""

    kind: str
    message: str
    raw: str
    format: str
    start: int
    end: int


@dataclass
class ParseResult:
    """Everything `parse_tool_calls` found in one text."""

    calls: list[ToolCall]
    errors: list[ParseError]
    prose: str

    @property
    def found(self) -> bool:
        """True when the model tried to call a tool (a call or a failed attempt was found)."""
        return bool(self.calls or self.errors)


Hit = ToolCall | ParseError
