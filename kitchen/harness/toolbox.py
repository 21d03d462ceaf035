"""What the harness can run: a toolbox of named tools, each call checked before it runs.

A `Toolbox` answers two questions for the harness: which tools does the model see (their
schemas), and what happens when the model calls one. The answer to the second is the same for
every toolbox, so it is written once, in `Toolbox.call`: a hidden tool is refused, then an unknown
one, then arguments the application supplies itself, then arguments that fail the schema, then
(where a toolbox asks the user first, `kitchen.mcp.policy`) a call the user did not confirm; only
then does the call run, with a time limit. A subclass supplies the schemas and the running:
`LocalToolbox` runs plain Python functions in this process; `kitchen.mcp.MCPToolbox` forwards
calls to an MCP server. Either way a call never raises: every failure becomes a `ToolResult` with
`ok=False` and a message the model can read (the texts are in `kitchen.harness.refusals`).

What this module does not do: find calls in text (`kitchen.harness.parsing`), or loop (`kitchen.harness.loop`).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Container, Literal, Mapping, Sequence, cast, get_args

# jsonschema checks the "iri" format with rfc3987_syntax when it is installed (JupyterLab's
# jupyter-events installs it), and that package builds about forty Lark parsers when imported:
# over a second in every kernel and every MCP server process. No tool schema here uses a format, so the
# import is refused before jsonschema tries it (jsonschema then simply leaves "iri" unchecked).
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
import jsonschema  # noqa: E402

from kitchen.harness import refusals
from kitchen.tools.schemas import injected_params, tool_schema

ErrorKind = Literal["unknown_tool", "hidden_tool", "injected_argument", "invalid_arguments", "missing_context",
                    "not_confirmed", "tool_error", "timeout", "server_error", "repeated_call", "too_many_calls",
                    "too_many_errors"]
"""Why a call that parsed did not give a result. A call that did not parse carries the parser's
kind instead (`kitchen.harness.parsing.ParseError.kind`: "malformed_json", "truncated", ...)."""
ParseErrorKind = str  # kitchen.harness.parsing's kinds, passed on as they are
ResultKind = Literal["call", "parse_error"]  # the result of a call, or the answer to text that did not parse
InjectedPolicy = Literal["reject", "ignore"]
INJECTED_POLICIES: tuple[InjectedPolicy, ...] = get_args(InjectedPolicy)
UNPARSED = "?"  # the name a parse error's result shows (trace views, the native protocol's tool message)


@dataclass
class ToolResult:
    """The outcome of one call, as the harness feeds it back to the model."""

    name: str
    arguments: dict
    ok: bool
    content: str  # what the model reads
    error_kind: ErrorKind | ParseErrorKind | None = None
    seconds: float = field(default=0.0, repr=False)  # how long it ran (left out of the repr: it varies)
    notes: list[str] = field(default_factory=list)  # what the application did quietly (e.g. an argument it dropped)
    kind: ResultKind = field(default="call", repr=False)  # "parse_error": no call was found, nothing ran
    # The tool's structured result (an MCP `structuredContent`, checked against the tool's
    # `outputSchema`), for the application; the model reads `content`. None for plain results.
    structured: dict | None = field(default=None, repr=False)


def error_result(name: str, arguments: dict, kind: ErrorKind | ParseErrorKind, message: str,
                 seconds: float = 0.0) -> ToolResult:
    return ToolResult(name, arguments, False, f"Error ({kind}): {message}", kind, seconds)


def parse_failure(kind: ParseErrorKind, message: str) -> ToolResult:
    """The answer to text that looked like a call but did not parse: no tool, no arguments.

    >>> failed = parse_failure("truncated", "The call is not closed.")
    >>> (failed.kind, failed.content)
    ('parse_error', 'Error (truncated): The call is not closed.')
    """
    result = error_result(UNPARSED, {}, kind, message)
    result.kind = "parse_error"
    return result


def check_policy(injected_policy: str) -> InjectedPolicy:
    """`injected_policy` if it is one the toolboxes know, else a ValueError."""
    if injected_policy not in INJECTED_POLICIES:
        raise ValueError("injected_policy must be 'reject' or 'ignore'")
    return cast(InjectedPolicy, injected_policy)


def hidden_tool(name: str, arguments: dict, available: Sequence[str]) -> ToolResult:
    """The refusal of a tool the model may not call (it exists, but not for the model)."""
    return error_result(name, arguments, "hidden_tool", refusals.hidden_tool(name, available))


def unknown_tool(name: str, arguments: dict, available: Sequence[str], where: str = "",
                 seconds: float = 0.0) -> ToolResult:
    """The answer to a call of a tool that does not exist (`where`: e.g. " on the server")."""
    return error_result(name, arguments, "unknown_tool", refusals.unknown_tool(name, available, where), seconds)


def drop_injected(name: str, arguments: dict, keys: Sequence[str],
                  injected_policy: InjectedPolicy) -> tuple[dict, list[str]] | ToolResult:
    """The model's arguments without the application-injected `keys` it wrote.

    Under "reject" the first such key refuses the call (a `ToolResult`); under "ignore" each is
    dropped with a note. Returns (arguments, notes) when the call may go on.

    >>> drop_injected("my_notes", {"query": "x", "user_id": "bob"}, ["user_id"], "ignore")
    ({'query': 'x'}, ["dropped user_id='bob' written by the model; the application supplies it"])
    """
    args, notes = dict(arguments), []
    for key in keys:
        if key in args:
            if injected_policy == "reject":
                return error_result(name, arguments, "injected_argument", refusals.injected_argument(name, key))
            notes.append(refusals.dropped_argument(key, args.pop(key)))
    return args, notes


def as_content(value: Any) -> str:
    """A tool's return value as the text the model reads: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def strict(parameters: dict) -> dict:
    """The parameters schema with unknown arguments forbidden (used for validation only)."""
    return {**parameters, "additionalProperties": False}


def arguments_error(parameters: dict, arguments: dict) -> str | None:
    """The first way `arguments` fail the schema, in words; None when they pass.

    >>> arguments_error({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}, {})
    "'x' is a required property"
    """
    return schema_problem(strict(parameters), arguments)


def schema_problem(schema: dict, value: Any) -> str | None:
    """The first way `value` fails the JSON schema (2020-12), in words, with where; None when it fits.

    >>> schema_problem({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": "3"})
    "'3' is not of type 'integer' (at n)"
    """
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if not errors:
        return None
    err = errors[0]
    where = f" (at {'/'.join(map(str, err.path))})" if err.path else ""
    return err.message + where


def run_with_timeout(fn: Callable[[], Any], timeout: float) -> tuple[str, Any]:
    """Run `fn` in a worker thread: ("ok", value), ("error", exception) or ("timeout", None).

    A thread cannot be killed; one that overruns is left to finish on its own, and its result is
    dropped. The harness does not wait for it.
    """
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # noqa: BLE001 - every failure becomes a result
            box["error"] = err

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        return "timeout", None
    if "error" in box:
        return "error", box["error"]
    return "ok", box.get("value")


class Toolbox(ABC):
    """The schemas the model sees, and a call that never raises, checked the same way for every toolbox.

    A subclass sets `hidden` (names the model may not call), `injected_policy` and `timeout`, and
    supplies `schemas()` and the hooks below; `call()` is the policy and is not overridden.
    """

    hidden: Container[str]
    injected_policy: InjectedPolicy
    timeout: float

    @abstractmethod
    def schemas(self) -> list[dict]:
        """The chat-template view of the tools the model may call."""

    def names(self) -> list[str]:
        return [s["function"]["name"] for s in self.schemas()]

    def call(self, name: str, arguments: dict) -> ToolResult:
        """A call written by the model: hidden → unknown → injected arguments → schema → context →
        the application's confirmation (`_held`) → run."""
        arguments = arguments if isinstance(arguments, dict) else {}
        if name in self.hidden:
            return hidden_tool(name, arguments, self._listed(include_hidden=False))
        return self._checked_call(name, arguments, from_model=True)

    def _checked_call(self, name: str, arguments: dict, *, from_model: bool) -> ToolResult:
        """Every check after the hidden one; a call `from_model=False` (the application's) skips
        the injected-argument check and may name hidden tools."""
        if (down := self._out_of_service(name, arguments)) is not None:
            return down
        if not self._has(name):
            return unknown_tool(name, arguments, self._listed(include_hidden=not from_model))
        args, notes = dict(arguments), []
        if from_model:
            kept = drop_injected(name, arguments, self._injected_keys(name), self.injected_policy)
            if isinstance(kept, ToolResult):
                return kept
            args, notes = kept
        parameters = self._parameters(name)
        if parameters is not None and (problem := arguments_error(parameters, args)):
            return error_result(name, arguments, "invalid_arguments",
                                refusals.invalid_arguments(name, problem, parameters))
        filled = self._with_context(name, args, arguments)
        if isinstance(filled, ToolResult):
            return filled
        if from_model and (held := self._held(name, args, arguments)) is not None:
            held.notes = notes + held.notes
            return held
        result = self._run(name, filled, arguments, self.timeout)
        result.notes = notes + result.notes
        return result

    # -- what a subclass supplies -----------------------------------------------------------------

    @abstractmethod
    def _listed(self, *, include_hidden: bool) -> list[str]:
        """The tool names a refusal lists: the model's, or every one (for the application)."""

    @abstractmethod
    def _has(self, name: str) -> bool:
        """True if a tool of that name can run (hidden or not)."""

    @abstractmethod
    def _injected_keys(self, name: str) -> list[str]:
        """The argument names the application supplies for this tool, so the model may not write them."""

    @abstractmethod
    def _run(self, name: str, args: dict, arguments: dict, timeout: float) -> ToolResult:
        """Run the checked call (`args`) within `timeout` seconds; results carry the model's `arguments`."""

    def _out_of_service(self, name: str, arguments: dict) -> ToolResult | None:
        """A refusal of every call, e.g. when the connection is down; None by default."""
        return None

    def _parameters(self, name: str) -> dict | None:
        """The parameters schema checked here; None when the other side checks (an MCP server)."""
        return None

    def _with_context(self, name: str, args: dict, arguments: dict) -> dict | ToolResult:
        """The arguments with the application's values filled in, or a refusal; as they are by default."""
        return args

    def _held(self, name: str, args: dict, arguments: dict) -> ToolResult | None:
        """A refusal of a model's call that passed every check, e.g. one the user did not confirm
        (`kitchen.mcp.policy`); None (run it) by default. The application's own calls skip this."""
        return None


class LocalToolbox(Toolbox):
    """Plain Python functions as tools.

    - `hidden`: tools the application may call itself but the model never sees; if the model
      names one anyway, the call is refused.
    - `context`: values for parameters declared `Injected(key)`, filled in at call time.
    - `injected_policy`: what to do when the model writes an injected parameter itself:
      "reject" (an error result) or "ignore" (drop it, note it, use the session's value).
    - `timeout`: seconds a tool may run.

    >>> from kitchen.tools import calculator
    >>> LocalToolbox([calculator]).call("calculator", {"expression": "6 * 7"}).content
    '42'
    >>> LocalToolbox([calculator]).call("calc", {}).error_kind
    'unknown_tool'
    """

    def __init__(self, tools: Sequence[Callable], *, hidden: Sequence[Callable] = (),
                 context: Mapping[str, Any] | None = None, injected_policy: InjectedPolicy = "reject",
                 timeout: float = 5.0):
        self.functions = {fn.__name__: fn for fn in tools}
        self.hidden = {fn.__name__: fn for fn in hidden}
        self.context = dict(context or {})
        self.injected_policy, self.timeout = check_policy(injected_policy), timeout
        self._schema_of = {name: tool_schema(fn) for name, fn in self.functions.items()}

    def schemas(self) -> list[dict]:
        return list(self._schema_of.values())

    def _listed(self, *, include_hidden: bool) -> list[str]:
        return list(self.functions)  # hidden functions never run here, not even for the application

    def _has(self, name: str) -> bool:
        return name in self.functions

    def _injected_keys(self, name: str) -> list[str]:
        return list(injected_params(self.functions[name]))

    def _parameters(self, name: str) -> dict | None:
        return self._schema_of[name]["function"]["parameters"]

    def _with_context(self, name: str, args: dict, arguments: dict) -> dict | ToolResult:
        for param, marker in injected_params(self.functions[name]).items():
            if marker.key not in self.context:
                return error_result(name, arguments, "missing_context", refusals.missing_context(name, marker.key))
            args[param] = self.context[marker.key]
        return args

    def _run(self, name: str, args: dict, arguments: dict, timeout: float) -> ToolResult:
        fn = self.functions[name]
        t0 = time.perf_counter()
        status, value = run_with_timeout(lambda: fn(**args), timeout)
        seconds = time.perf_counter() - t0
        if status == "timeout":
            return error_result(name, arguments, "timeout", refusals.timed_out(name, timeout), seconds)
        if status == "error":
            return error_result(name, arguments, "tool_error", refusals.tool_failed(name, value), seconds)
        return ToolResult(name, arguments, True, as_content(value), None, seconds)
