"""One model turn behind an API: the request in the chat template's terms, the reply as calls with ids.

Both API shapes (`openai_shape`, `anthropic_shape`) read their request into a `ChatRequest`; then
`stream_turn` does the same for both: render the conversation with the tier's chat template,
generate with the project's engine (held to chapter 07's grammar when the calls must validate:
`strict`, `tool_choice` "required", a named tool, or "none"), read the text with the harness's
parser and give every call an id. What comes back, `ApiTurn`, keeps all three layers: the prompt
the template rendered, the raw text the model wrote, and the calls the server read from it.

The project's choices here (not an API's contract, and said so in chapter 09):

- text streams token by token until something could be the start of a call (`<tool_call>`, or a
  `{` or a fence at the start of a line); a call goes out once its block is complete and read, as
  its id and name, then its arguments in the pieces the model wrote them in. So the server never
  sends a call it would have to take back;
- a call the parser cannot read, or to a tool the request did not offer, comes back as the text
  the model wrote (finish "stop"), never as a call the server made up;
- a call's `arguments` is the JSON text the model wrote, as written; the server rewrites it only
  when the parser had to repair it (then it is `json.dumps` of what the parser read);
- decoding is greedy, whatever `temperature` a request asks for (llama.cpp's server samples at
  0.8 unless told `temperature: 0`).

>>> turn_finish([], "end_of_turn"), turn_finish([], "max_new_tokens")
('stop', 'length')
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Iterator, Literal, Sequence

from kitchen.grammar.calls import GrammarError, ToolChoice, call_grammar, choice_name
from kitchen.harness.parsing import NATIVE_FORMATS, ToolCall, parse_tool_calls
from kitchen.harness.parsing.merging import prose, removed_spans
from kitchen.harness.parsing.scanning import find_fences
from kitchen.model.interface import ChatModel
from kitchen.model.replies import Generation

Finish = Literal["stop", "tool_calls", "length"]
CALL_STOP = "</tool_call>"  # one call per reply: generation stops where the first call ends
MAX_TOKENS = 1024  # a reply's cap on a CPU, whatever the request asks
CALL_START = re.compile(r"(?m)^[ \t]*(?:\{|`)")  # a bare JSON call or a fence may start here


@dataclass
class ApiError(Exception):
    """A request the server refuses, with what an API client expects: an HTTP status, an error type,
    the message, and the parameter at fault."""

    status: int
    message: str
    kind: str = "invalid_request_error"
    param: str | None = None

    def __str__(self) -> str:
        return self.message


@dataclass
class ChatRequest:
    """A request of either API, in the chat template's terms (what Qwen's template renders)."""

    model: str
    messages: list[dict]
    tools: list[dict] = field(default_factory=list)  # {"type": "function", "function": {...}}
    choice: ToolChoice = "auto"
    parallel: bool = True
    strict: bool = False  # a tool asked for `strict`: its calls are held to the schemas
    max_tokens: int = 256
    stop: list[str] = field(default_factory=list)
    stream: bool = False


@dataclass
class ApiCall:
    """One call as an API hands it out: an id, the tool's name, the arguments as JSON text."""

    id: str
    name: str
    arguments: str
    fragments: list[str]  # `arguments` in the pieces a stream sends them in (the model's tokens)

    @property
    def input(self) -> dict:
        """The arguments as an object (what Anthropic's `input` and Converse's `input` hold)."""
        return json.loads(self.arguments)


@dataclass
class ApiTurn:
    """One turn: what the model read, what it wrote, and what the server made of it."""

    prompt: str  # the text the chat template rendered from the request
    raw: str  # the text the model wrote, special tokens by name
    content: str  # the reply's text, calls taken out
    calls: list[ApiCall]
    finish: Finish
    prompt_tokens: int
    completion_tokens: int
    stop_string: str | None = None  # a stop string of the request's that ended the reply
    grammar: str = ""  # the tool choice whose grammar held the reply ("" when none did)
    unread: list[str] = field(default_factory=list)  # why an attempt at a call came back as text


def new_id(prefix: str) -> str:
    """An id no other call or reply has: `call_…` (OpenAI), `toolu_…` (Anthropic), `tooluse_…` (Converse).

    >>> new_id("call_").startswith("call_"), len(new_id("call_"))
    (True, 29)
    """
    return prefix + secrets.token_hex(12)


def grammar_for(request: ChatRequest) -> tuple[str | None, str]:
    """The grammar a reply is held to, and the tool choice it stands for ("" and None: free text)."""
    name = choice_name(request.choice)
    if not request.tools or (name == "auto" and not request.strict):
        return None, ""
    try:
        return call_grammar(request.tools, request.choice, parallel=request.parallel), name
    except GrammarError as err:
        raise ApiError(400, str(err), param="tools") from err


def stream_turn(model: ChatModel, request: ChatRequest, call_prefix: str = "call_"
                ) -> Iterator[tuple[str, Any]]:
    """Run one turn and say what happens as it happens: ("start", prompt token count), then
    ("text", delta) for each piece of text that is safe to show, then ("done", `ApiTurn`)."""
    grammar, held_by = grammar_for(request)
    tools = request.tools or None
    prompt = model.render(request.messages, tools)
    yield "start", len(model.encode(prompt))
    stop = list(request.stop) + ([] if request.parallel or not request.tools else [CALL_STOP])
    stream = model.stream(request.messages, tools, max_new_tokens=min(request.max_tokens, MAX_TOKENS),
                          stop=stop, grammar=grammar)
    text, shown = "", ""
    for token in stream:
        text += token.text
        now = shown_text(text)
        if len(now) > len(shown) and now.startswith(shown):
            yield "text", now[len(shown):]
            shown = now
    turn = read_turn(stream.run(), request, held_by, call_prefix)
    if turn.content.startswith(shown) and len(turn.content) > len(shown):
        yield "text", turn.content[len(shown):]
    yield "done", turn


def run_turn(model: ChatModel, request: ChatRequest, call_prefix: str = "call_") -> ApiTurn:
    """The whole turn at once (`stream_turn` without the pieces)."""
    for kind, value in stream_turn(model, request, call_prefix):
        if kind == "done":
            return value
    raise AssertionError("stream_turn always ends with its turn")


def shown_text(text: str) -> str:
    """The part of a reply so far that can go out as text: up to where a call might start, without
    the whitespace at either end (a trailing `<tool_` might still become `<tool_call>`).

    >>> shown_text("Let me check.\\n<tool_call>\\n{")
    'Let me check.'
    >>> shown_text("The answer is 42. <tool_")
    'The answer is 42.'
    """
    cuts = [m.start() for m in CALL_START.finditer(text)]
    if "<tool_call>" in text:
        cuts.append(text.index("<tool_call>"))
    cuts += [len(text) - k for k in range(1, len("<tool_call>")) if text.endswith("<tool_call>"[:k])]
    return text[:min(cuts, default=len(text))].strip()


def read_turn(generation: Generation, request: ChatRequest, held_by: str = "",
              call_prefix: str = "call_") -> ApiTurn:
    """What the server makes of a finished reply: its calls (known tools only) and its text."""
    text = generation.text
    known = {t["function"]["name"] for t in request.tools}
    calls: list[ToolCall] = []
    unread: list[str] = []
    if request.tools and choice_name(request.choice) != "none":
        parsed = parse_tool_calls(text, NATIVE_FORMATS, tools=request.tools)
        unread = [f"{e.kind}: {e.message}" for e in parsed.errors]
        for call in parsed.calls:
            if call.name in known:
                calls.append(call)
            else:
                unread.append(f"unknown tool {call.name!r}: the request offered {sorted(known)}")
        if not request.parallel:
            calls = calls[:1]
    content = prose(text, removed_spans(text, calls, find_fences(text))) if calls else text.strip()
    stop_string = generation.stop_string if generation.stop_string in request.stop else None
    return ApiTurn(prompt=generation.prompt, raw=text, content=content,
                   calls=[api_call(c, generation, new_id(call_prefix)) for c in calls],
                   finish=turn_finish(calls, generation.stop_reason), prompt_tokens=len(generation.prompt_ids),
                   completion_tokens=generation.new_tokens, stop_string=stop_string, grammar=held_by, unread=unread)


def turn_finish(calls: Sequence[ToolCall], stop_reason: str) -> Finish:
    """A reply cut by its token cap is "length" even with calls in it (as the APIs do: it is unfinished)."""
    if stop_reason == "max_new_tokens":
        return "length"
    return "tool_calls" if calls else "stop"


def api_call(call: ToolCall, generation: Generation, call_id: str) -> ApiCall:
    """A parsed call as the API hands it out: its arguments as the model wrote them, in its tokens."""
    span = arguments_span(generation.text, call)
    if span is None or "".join(t.text for t in generation.tokens) != generation.text:
        arguments = json.dumps(call.arguments, ensure_ascii=False) if span is None else generation.text[slice(*span)]
        return ApiCall(call_id, call.name, arguments, [arguments])
    start, end = span
    fragments, pos = [], 0
    for token in generation.tokens:
        piece_start, pos = pos, pos + len(token.text)
        piece = generation.text[max(piece_start, start):min(pos, end)]
        if piece:
            fragments.append(piece)
    return ApiCall(call_id, call.name, generation.text[start:end], fragments)


def arguments_span(text: str, call: ToolCall) -> tuple[int, int] | None:
    """Where in `text` the model wrote the call's arguments object, if it wrote exactly what the
    parser read (else None: the parser repaired something).

    >>> text = '<tool_call>\\n{"name": "f", "arguments": {"x": 1}}\\n</tool_call>'
    >>> call = parse_tool_calls(text).calls[0]
    >>> start, end = arguments_span(text, call); text[start:end]
    '{"x": 1}'
    """
    if text[call.start:call.end] != call.raw:
        return None
    key = re.search(r'"arguments"\s*:\s*', call.raw)
    if key is None:
        return None
    try:
        value, end = json.JSONDecoder().raw_decode(call.raw, key.end())
    except ValueError:
        return None
    if value != call.arguments:
        return None
    return call.start + key.end(), call.start + end
