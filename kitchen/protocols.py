"""Protocols: how tools are described to the model, how its calls are found, how results go back.

The loop in `kitchen.harness` is the same for every protocol. `NativeProtocol` uses what Qwen
was trained on: the schemas go to the chat template (which writes them into the system turn),
calls are `<tool_call>` blocks (and the tag-less JSON small models often write instead), and
results go back as `tool` messages, which the template wraps in `<tool_response>`.

What this module does not do: parse text itself (`kitchen.parsing`) or run tools (`kitchen.toolbox`).
"""

from __future__ import annotations

from typing import Sequence

from .parsing import NATIVE_FORMATS, ParseResult, parse_tool_calls
from .toolbox import ToolResult


class Protocol:
    """Interface of a tool-calling protocol."""

    name = "protocol"
    stop: tuple[str, ...] = ()

    def prepare(self, messages: Sequence[dict], schemas: list[dict]) -> tuple[list[dict], list[dict] | None]:
        """The messages the model reads, and the tools to hand to the chat template (or None)."""
        raise NotImplementedError

    def detect(self, text: str, schemas: list[dict]) -> ParseResult:
        raise NotImplementedError

    def turn_messages(self, text: str, parsed: ParseResult, results: list[ToolResult]) -> list[dict]:
        """What is appended after a step: the model's own turn, then the results."""
        raise NotImplementedError


class NativeProtocol(Protocol):
    """Qwen's own format, through its chat template.

    `formats` are the parser formats that count as a call: by default `<tool_call>` blocks and
    bare or fenced JSON (see FACTS in the README: the offline packs often drop the tags).
    """

    name = "native"
    stop = ("</tool_call>",)

    def __init__(self, formats: Sequence[str] = NATIVE_FORMATS):
        self.formats = tuple(formats)

    def prepare(self, messages, schemas):
        return list(messages), (schemas or None)

    def detect(self, text, schemas):
        return parse_tool_calls(text, self.formats, tools=schemas)

    def turn_messages(self, text, parsed, results):
        # The model's own text is kept as its turn (not re-rendered from the parsed calls): the
        # model sees what it wrote, and the KV cache of that text can be reused.
        out = [{"role": "assistant", "content": text}]
        out += [{"role": "tool", "name": r.name, "content": r.content} for r in results]
        return out


NATIVE = NativeProtocol()
