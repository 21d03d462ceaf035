"""The harness: the loop that turns a model's text into tool calls and feeds the results back.

One step of the loop:

1. generate, stopping at the end of a call or the end of the turn;
2. parse the text for calls (the protocol decides how);
3. no call: the text is the answer, the run ends;
4. otherwise run each call through the toolbox (checked, timed, never raising; a call repeated
   with the same arguments is refused with its earlier result), append the model's turn and one
   result message per call, in order, and go back to 1. At most `max_calls` calls of one reply
   run and at most `max_errors` parse failures are fed back; the rest are summed up in one message;
5. at the cap (`max_steps` model calls) the run ends with a message to the user.

`Harness.events()` yields every moment of that as an `Event`, so a widget can show the run token by
token or step through it; `run_harness()` just runs it and returns the `Trace`.

What this module does not do: describe tools or detect calls itself (that is the `Protocol`'s job,
see `kitchen.harness.protocols`), or run tools (the `Toolbox`'s, see `kitchen.harness.toolbox`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Literal, Sequence

from kitchen.harness import refusals
from kitchen.grammar.calls import GrammarError, ToolChoice, call_grammar, choice_name
from kitchen.model.interface import ChatModel
from kitchen.model.replies import Generation
from kitchen.harness.parsing import ParseResult, ToolCall
from kitchen.harness.protocols import NATIVE, Protocol
from kitchen.harness.toolbox import UNPARSED, LocalToolbox, Toolbox, ToolResult, error_result, parse_failure

# An empty reply is no answer to show anyone: the harness asks once for one.
EMPTY_NUDGE = "Your reply was empty. Answer my question in a sentence, using the tool results above."
CAP_MESSAGE = ("I stopped after {n} model calls without reaching an answer (the harness caps the loop). "
               "Here is what I found so far; try a simpler question or raise the cap.")

EventKind = Literal["prompt", "token", "generated", "parsed", "result", "appended", "answer", "cap"]
RunState = Literal["running", "answer", "cap"]  # a `Trace`'s stop_reason


@dataclass
class Step:
    """One model call and what the harness did with its text."""

    index: int
    generation: Generation
    parsed: ParseResult
    results: list[ToolResult] = field(default_factory=list)
    appended: list[dict] = field(default_factory=list)  # messages added to the conversation after it
    prompt_added: str = ""  # the part of the rendered prompt that is new since the previous step
    tool_seconds: float = 0.0
    nudge: str = ""  # what the harness asked after this step's empty reply (`EMPTY_NUDGE`), if it did
    tool_choice: str = ""  # the grammar that held this step ("auto", "required", a tool, "none"; "" if none)
    grammar_error: str = ""  # why no grammar held it, when the harness fell back to free decoding

    @property
    def text(self) -> str:
        return self.generation.text

    @property
    def prompt_tokens(self) -> int:
        return len(self.generation.prompt_ids)


@dataclass
class Trace:
    """A whole run: the conversation, each step, and how it ended."""

    messages: list[dict]
    steps: list[Step] = field(default_factory=list)
    answer: str | None = None
    stop_reason: RunState = "running"  # then "answer" or "cap"

    @property
    def results(self) -> list[ToolResult]:
        return [r for s in self.steps for r in s.results]

    @property
    def seconds(self) -> float:
        return sum(s.generation.seconds + s.tool_seconds for s in self.steps)


@dataclass
class Event:
    """One moment of a run. `kind` is one of:

    "prompt" (data: prompt, added), "token" (token), "generated" (generation), "parsed" (parsed),
    "result" (call, result), "appended" (messages), "answer" (answer), "cap" (answer).
    Every event carries the trace so far.
    """

    kind: EventKind
    step: int
    trace: Trace
    data: dict[str, Any] = field(default_factory=dict)


class Harness:
    """A model, a toolbox and a protocol, looped with a cap.

    `tool_choice` (None: no grammar) holds the model's replies to a grammar built from the tools'
    schemas (`kitchen.grammar.calls`): the choice applies to the first step, later steps are "auto" so
    the model can answer; "none" applies to every step and its calls are never run. A schema no
    grammar can hold raises `GrammarError`, or, with `grammar_fallback=True`, the step is decoded
    freely and the step says why.

    `parallel_calls`: a reply may hold several calls (generation runs to the end of the turn
    instead of stopping after the first call, and a grammar allows one call after another); each
    runs and its result is appended in order. Off by default: the chapters run one call per reply
    unless they say otherwise. `max_calls` and `max_errors` cap what one reply can cost.

    `continue_cache`: the first step also reuses the model's KV cache from its last call, so a
    conversation continued from a run that just ended pre-fills only its new turn. Its first reply
    then depends on that earlier call too (how a prompt is split between cache and pre-fill changes
    the last digits of the numbers); off by default, so that a run depends on its messages alone.
    """

    def __init__(self, model: ChatModel, tools: Toolbox | Sequence[Callable], *, protocol: Protocol = NATIVE,
                 max_steps: int = 8, max_new_tokens: int = 256, reuse_cache: bool = True,
                 refuse_repeats: bool = True, nudge_empty: bool = True,
                 tool_choice: ToolChoice | None = None, grammar_fallback: bool = False,
                 parallel_calls: bool = False, max_calls: int = 8, max_errors: int = 3,
                 continue_cache: bool = False):
        if tool_choice is not None:
            choice_name(tool_choice)  # a bad choice fails here, not at the first step
        self.tool_choice, self.grammar_fallback = tool_choice, grammar_fallback
        self.model = model
        self.toolbox = tools if isinstance(tools, Toolbox) else LocalToolbox(tools)
        self.protocol, self.max_steps = protocol, max_steps
        self.max_new_tokens, self.reuse_cache = max_new_tokens, reuse_cache
        self.continue_cache = continue_cache
        self.refuse_repeats, self.nudge_empty = refuse_repeats, nudge_empty
        self.parallel_calls, self.max_calls, self.max_errors = parallel_calls, max(1, max_calls), max(1, max_errors)

    def _run_call(self, call: ToolCall, done: dict[str, ToolResult]) -> ToolResult:
        """Run one call; a call repeated with the same arguments is answered without running it."""
        key = json.dumps([call.name, call.arguments], sort_keys=True, default=str)
        if self.refuse_repeats and key in done:
            return error_result(call.name, call.arguments, "repeated_call",
                                refusals.repeated_call(call.name, done[key].content))
        result = self.toolbox.call(call.name, call.arguments)
        done[key] = result
        return result

    def run(self, messages: Sequence[dict], on_event: Callable[[Event], None] | None = None) -> Trace:
        event = None
        for event in self.events(messages):
            if on_event:
                on_event(event)
        assert event is not None
        return event.trace

    def events(self, messages: Sequence[dict]) -> Iterator[Event]:
        """Run the loop on `messages`, yielding an `Event` at each moment, per step: "prompt", one
        "token" per token written, "generated", "parsed", then "answer" (the run ends) or a "result"
        per call and "appended" (the messages added); "cap" ends a run at `max_steps`. Each event
        carries the `Trace` so far: the last one's is the whole run."""
        trace = Trace(messages=list(messages))
        previous_prompt = ""
        done: dict[str, ToolResult] = {}
        for index in range(1, self.max_steps + 1):
            schemas = self.toolbox.schemas()
            model_messages, template_tools = self.protocol.prepare(trace.messages, schemas)
            prompt = self.model.render(model_messages, template_tools)
            added = prompt[len(previous_prompt):] if prompt.startswith(previous_prompt) else prompt
            previous_prompt = prompt
            yield Event("prompt", index, trace, {"prompt": prompt, "added": added})

            # A run starts from an empty KV cache (its replies depend on its own messages only),
            # unless it continues the model's last call; later steps reuse the previous step's cache.
            choice, grammar, grammar_error = self._grammar(schemas, index)
            stop = () if self.parallel_calls else self.protocol.stop
            stream = self.model.stream(model_messages, template_tools, stop=stop,
                                       max_new_tokens=self.max_new_tokens,
                                       reuse_cache=self.reuse_cache and (index > 1 or self.continue_cache),
                                       **({"grammar": grammar} if grammar else {}))
            for token in stream:
                yield Event("token", index, trace, {"token": token})
            generation = stream.result
            yield Event("generated", index, trace, {"generation": generation})

            parsed = self.protocol.detect(generation.text, schemas) if choice != "none" else ParseResult(
                [], [], generation.text.strip())  # under "none" nothing the model writes is run
            step = Step(index, generation, parsed, prompt_added=added, tool_choice=choice,
                        grammar_error=grammar_error)
            trace.steps.append(step)
            yield Event("parsed", index, trace, {"parsed": parsed})

            if not parsed.found and self._nudge(trace, step):
                yield Event("appended", index, trace, {"messages": step.appended})
                continue
            if not parsed.found:
                trace.answer, trace.stop_reason = generation.text.strip(), "answer"
                trace.messages.append({"role": "assistant", "content": generation.text})
                yield Event("answer", index, trace, {"answer": trace.answer})
                return
            if index == self.max_steps:
                break

            t0 = time.perf_counter()
            for call, result in self._results(parsed, done):
                step.results.append(result)
                yield Event("result", index, trace, {"call": call, "result": result})
            step.tool_seconds = time.perf_counter() - t0

            step.appended = self.protocol.turn_messages(generation.text, parsed, step.results)
            trace.messages.extend(step.appended)
            yield Event("appended", index, trace, {"messages": step.appended})

        trace.answer = CAP_MESSAGE.format(n=self.max_steps)
        trace.stop_reason = "cap"
        yield Event("cap", self.max_steps, trace, {"answer": trace.answer})

    def _results(self, parsed: ParseResult, done: dict[str, ToolResult]) -> Iterator[tuple[ToolCall | None, ToolResult]]:
        """Each call's result in order, then each parse failure's, within the caps: at most
        `max_calls` calls run and `max_errors` parse failures are reported; the rest are summed up
        in one message each."""
        for call in parsed.calls[:self.max_calls]:
            yield call, self._run_call(call, done)
        skipped = len(parsed.calls) - self.max_calls
        if skipped > 0:
            yield None, error_result(UNPARSED, {}, "too_many_calls", refusals.too_many_calls(self.max_calls, skipped))
        for error in parsed.errors[:self.max_errors]:
            yield None, parse_failure(error.kind, error.message)
        skipped = len(parsed.errors) - self.max_errors
        if skipped > 0:
            yield None, error_result(UNPARSED, {}, "too_many_errors", refusals.too_many_errors(self.max_errors, skipped))

    def _grammar(self, schemas: list[dict], index: int) -> tuple[str, str | None, str]:
        """This step's choice in words, its grammar (None: free decoding) and, when the harness
        fell back to free decoding because the schemas allow no grammar, why."""
        if self.tool_choice is None:
            return "", None, ""
        name = choice_name(self.tool_choice)
        choice = self.tool_choice if index == 1 or name == "none" else "auto"
        fmt = self.protocol.name  # "native" or a prompt format's name
        if fmt != "native" and choice_name(choice) in ("auto", "none"):
            return "", None, ""  # a prompt format's grammar holds a call only; later steps are free
        try:
            return choice_name(choice), call_grammar(schemas, choice, fmt, parallel=self.parallel_calls), ""
        except GrammarError as err:
            if not self.grammar_fallback:
                raise
            return "", None, str(err)

    def _nudge(self, trace: Trace, step: Step) -> bool:
        """After an empty reply (and once per run), append it and a request for an answer."""
        nudged = any(s.nudge for s in trace.steps)
        if step.text.strip() or not self.nudge_empty or nudged or step.index == self.max_steps:
            return False
        step.nudge = EMPTY_NUDGE
        step.appended = [{"role": "assistant", "content": step.text}, {"role": "user", "content": EMPTY_NUDGE}]
        trace.messages += step.appended
        return True


def run_harness(model: ChatModel, messages: Sequence[dict] | str, tools: Toolbox | Sequence[Callable], *,
                on_event: Callable[[Event], None] | None = None, **options) -> Trace:
    """Run the loop to its end and return the `Trace`. A str is taken as one user message.

    >>> from kitchen.model.scripted import ScriptedModel
    >>> from kitchen.tools import calculator
    >>> call = '<tool_call>\\n{"name": "calculator", "arguments": {"expression": "6 * 7"}}\\n</tool_call>'
    >>> trace = run_harness(ScriptedModel([call, "6 * 7 = 42."]), "What is 6 * 7?", [calculator])
    >>> [r.content for r in trace.results], trace.answer
    (['42'], '6 * 7 = 42.')
    """
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    return Harness(model, tools, **options).run(messages, on_event)
