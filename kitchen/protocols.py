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


ANSWER_NOTE = ("This is the tool's result. Now answer the user's question in a sentence; "
               "do not call the same tool again.")


class NativeProtocol(Protocol):
    """Qwen's own format, through its chat template.

    - `formats`: the parser formats that count as a call: by default `<tool_call>` blocks and bare
      or fenced JSON (the offline packs often drop the tags).
    - `keep_raw_text`: append the model's turn as it wrote it, instead of re-rendered in Qwen's
      format.
    - `result_note`: a sentence added after every tool result. The small packs, given a bare
      result, call the tool again and again until the cap; `ANSWER_NOTE` (the default) makes them
      answer, at the price of ending multi-step tasks early. Chapter 03 shows both.
    """

    name = "native"
    stop = ("</tool_call>",)

    def __init__(self, formats: Sequence[str] = NATIVE_FORMATS, keep_raw_text: bool = False,
                 result_note: str = ANSWER_NOTE):
        self.formats = tuple(formats)
        self.keep_raw_text = keep_raw_text
        self.result_note = result_note

    def prepare(self, messages, schemas):
        return list(messages), (schemas or None)

    def detect(self, text, schemas):
        return parse_tool_calls(text, self.formats, tools=schemas)

    def turn_messages(self, text, parsed, results):
        if self.keep_raw_text:
            # The model's own text as its turn: the longest prefix for KV-cache reuse.
            out = [{"role": "assistant", "content": text}]
        else:
            # The calls re-rendered in Qwen's own format, whatever the model wrote: the
            # conversation then looks like the ones the model was trained on.
            out = [{"role": "assistant", "content": parsed.prose,
                    "tool_calls": [c.to_message_call() for c in parsed.calls]}]
        note = f"\n\n{self.result_note}" if self.result_note else ""
        out += [{"role": "tool", "name": r.name, "content": r.content + note} for r in results]
        return out


NATIVE = NativeProtocol()
