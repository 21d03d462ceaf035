"""Looking inside a rendered prompt: its parts, its `<tools>` block, and what each tool costs.

Qwen's chat template, given tools, writes a system turn that holds the system text, a `# Tools`
heading with an instruction, one JSON schema per line inside `<tools></tools>`, and the format a
call must take; then the conversation; then the start of the assistant's turn. These functions
cut that text into labelled parts and count tokens, for chapter 02.

What they do not do: render anything themselves. The chat template is the one source of the
prompt text (`model.render`); this module only reads what it wrote.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kitchen.tools.schemas import as_schema

TURN = re.compile(r"<\|im_start\|>(\w+)\n(.*?)(?:<\|im_end\|>\n?|$)", re.S)
# The block itself, not the instruction's mention of "<tools></tools> XML tags"
BLOCK = re.compile(r"<tools>\n.*?\n</tools>", re.S)


def prompt_parts(prompt: str) -> list[tuple[str, str]]:
    """Cut a rendered Qwen prompt into labelled parts, in order; joined, they give `prompt` back.

    >>> [label for label, _ in prompt_parts("<|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\n")]
    ['user turn', 'start of the assistant turn']
    """
    parts: list[tuple[str, str]] = []
    pos = 0
    for m in TURN.finditer(prompt):
        if m.start() > pos:
            parts.append(("text", prompt[pos:m.start()]))
        role, body = m.group(1), m.group(2)
        whole = m.group(0)
        if role == "system" and "# Tools" in body:
            head = whole[:whole.index("# Tools")]
            block = BLOCK.search(whole)
            tools_start, tools_end = block.start(), block.end()
            parts += [("system text", head), ("# Tools: heading and instruction", whole[len(head):tools_start]),
                      ("<tools> block: one schema per line", whole[tools_start:tools_end]),
                      ("the call format it asks for", whole[tools_end:])]
        elif role == "assistant" and "<|im_end|>" not in whole:
            parts.append(("start of the assistant turn", whole))
        elif role == "user" and "<tool_response>" in body:
            parts.append(("tool results (inside a user turn)", whole))
        else:
            label = {"system": "system text", "user": "user turn", "assistant": "assistant turn"}.get(role, role)
            parts.append((label, whole))
        pos = m.end()
    if pos < len(prompt):
        parts.append(("text", prompt[pos:]))
    return parts


def tools_block(prompt: str) -> str:
    """The `<tools>…</tools>` block of a rendered prompt ("" when it has none)."""
    m = BLOCK.search(prompt)
    return m.group(0) if m else ""


@dataclass
class ToolCost:
    """Tokens one tool adds to every request that carries it."""

    name: str
    total: int  # its line in the <tools> block
    description: int  # the description text
    parameters: int  # the parameters schema (names, types, descriptions)

    @property
    def structure(self) -> int:
        """The rest: the name, the keys and the JSON punctuation."""
        return self.total - self.description - self.parameters


def tool_costs(model, tools: Sequence[Callable | dict], messages: Sequence[dict] | None = None
               ) -> tuple[list[ToolCost], int, int, int]:
    """(cost per tool, fixed preamble, prompt tokens with no tools, prompt tokens with all tools).

    The preamble is what the template adds as soon as any tool is present (heading, instruction,
    call format), measured as the prompt with one tool minus the prompt with none minus that
    tool's own line.
    """
    messages = list(messages or [{"role": "user", "content": "Hello"}])
    n = lambda text: len(model.encode(text))  # noqa: E731
    base = n(model.render(messages))
    costs = []
    preamble = None
    for tool in tools:
        schema = as_schema(tool)
        f = schema["function"]
        prompt = model.render(messages, [schema])
        line = tools_block(prompt)[len("<tools>"):-len("</tools>")].strip("\n")
        costs.append(ToolCost(f["name"], n("\n" + line), n(json.dumps(f.get("description", ""), ensure_ascii=False)),
                              n(json.dumps(f["parameters"], ensure_ascii=False))))
        if preamble is None:
            preamble = n(prompt) - base - costs[-1].total
    everything = n(model.render(messages, [as_schema(t) for t in tools]))
    return costs, preamble or 0, base, everything


def edit_schema(schema: dict[str, Any], *, description: str | None = None,
                add: tuple[str, str, str] | None = None, remove: str | None = None,
                parameters: dict[str, str] | None = None) -> dict[str, Any]:
    """A copy of a chat-template schema with its description changed, a parameter added
    (`(name, json_type, description)`, required) or one removed, or parameters' descriptions
    replaced (`parameters`: name -> new text). The input is not changed.

    >>> s = {"type": "function", "function": {"name": "f", "description": "d",
    ...      "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}}
    >>> edit_schema(s, remove="x")["function"]["parameters"]
    {'type': 'object', 'properties': {}}
    """
    out = copy.deepcopy(schema)
    f = out["function"]
    params = f["parameters"]
    if description is not None:
        f["description"] = description
    for name, text in (parameters or {}).items():
        params["properties"][name]["description"] = text
    if remove:
        params["properties"].pop(remove, None)
        if remove in params.get("required", []):
            params["required"].remove(remove)
            if not params["required"]:
                del params["required"]
    if add:
        name, json_type, text = add
        if not name.isidentifier():
            raise ValueError(f"{name!r} is not a valid parameter name")
        params["properties"][name] = {"type": json_type, "description": text}
        params.setdefault("required", []).append(name)
    return out


def preview_tools(model, schemas: Sequence[dict], messages: Sequence[dict] | None = None) -> tuple[str, int]:
    """The `<tools>` block the model would read for these schemas, and the prompt's token count.

    The logic behind chapter 02's schema editor.
    """
    messages = list(messages or [{"role": "user", "content": "Hello"}])
    prompt = model.render(messages, list(schemas))
    return tools_block(prompt), len(model.encode(prompt))
