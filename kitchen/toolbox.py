"""What the harness can run: a toolbox of named tools, each call checked before it runs.

A `Toolbox` answers two questions for the harness: which tools does the model see (their
schemas), and what happens when the model calls one. `LocalToolbox` runs plain Python functions
in this process; `kitchen.mcp` has one that forwards calls to an MCP server. Either way a call
never raises: every failure becomes a `ToolResult` with `ok=False` and a message the model can
read (an unknown tool with the list of known ones, arguments that fail the schema, a tool that
raised, a tool that ran past its time limit, a hidden tool refused).

What this module does not do: find calls in text (`kitchen.parsing`), or loop (`kitchen.harness`).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import jsonschema

from .schemas import injected_params, tool_schema


@dataclass
class ToolResult:
    """The outcome of one call, as the harness feeds it back to the model."""

    name: str
    arguments: dict
    ok: bool
    content: str  # what the model reads
    error_kind: str | None = None  # "unknown_tool", "hidden_tool", "invalid_arguments", "tool_error", "timeout", ...
    seconds: float = field(default=0.0, repr=False)  # how long it ran (left out of the repr: it varies)
    notes: list[str] = field(default_factory=list)  # what the application did quietly (e.g. an argument it dropped)


def error_result(name: str, arguments: dict, kind: str, message: str, seconds: float = 0.0) -> ToolResult:
    return ToolResult(name, arguments, False, f"Error ({kind}): {message}", kind, seconds)


INJECTED_POLICIES = ("reject", "ignore")


def check_policy(injected_policy: str) -> str:
    """`injected_policy` if it is one the toolboxes know, else a ValueError."""
    if injected_policy not in INJECTED_POLICIES:
        raise ValueError("injected_policy must be 'reject' or 'ignore'")
    return injected_policy


def hidden_tool(name: str, arguments: dict, available: Sequence[str]) -> ToolResult:
    """The refusal of a tool the model may not call (it exists, but not for the model)."""
    return error_result(name, arguments, "hidden_tool", f"the tool {name!r} is not available to you. "
                                                       f"Available tools: {', '.join(available)}.")


def unknown_tool(name: str, arguments: dict, available: Sequence[str], where: str = "",
                 seconds: float = 0.0) -> ToolResult:
    """The answer to a call of a tool that does not exist (`where`: e.g. " on the server")."""
    return error_result(name, arguments, "unknown_tool", f"there is no tool named {name!r}{where}. "
                                                        f"Available tools: {', '.join(available)}.", seconds)


def drop_injected(name: str, arguments: dict, keys: Sequence[str],
                  injected_policy: str) -> tuple[dict, list[str]] | ToolResult:
    """The model's arguments without the application-injected `keys` it wrote.

    Under "reject" the first such key refuses the call (a `ToolResult`); under "ignore" each is
    dropped with a note. Returns (arguments, notes) when the call may go on.
    """
    args, notes = dict(arguments), []
    for key in keys:
        if key in args:
            if injected_policy == "reject":
                return error_result(name, arguments, "injected_argument",
                                    f"{key!r} is set by the application, not by you; "
                                    f"call {name} again without it.")
            notes.append(f"dropped {key}={args.pop(key)!r} written by the model; the application supplies it")
    return args, notes


def as_content(value: Any) -> str:
    """A tool's return value as the text the model reads: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def strict(parameters: dict) -> dict:
    """The parameters schema with unknown arguments forbidden (used for validation only)."""
    return {**parameters, "additionalProperties": False}


def validation_error(parameters: dict, arguments: dict) -> str | None:
    """The first way `arguments` fail the schema, in words; None when they pass.

    >>> validation_error({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}, {})
    "'x' is a required property"
    """
    validator = jsonschema.Draft202012Validator(strict(parameters))
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
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


class Toolbox:
    """Interface: the schemas the model sees, and a call that never raises."""

    def schemas(self) -> list[dict]:
        raise NotImplementedError

    def names(self) -> list[str]:
        return [s["function"]["name"] for s in self.schemas()]

    def call(self, name: str, arguments: dict) -> ToolResult:
        raise NotImplementedError


class LocalToolbox(Toolbox):
    """Plain Python functions as tools.

    - `hidden`: tools the application may call itself but the model never sees; if the model
      names one anyway, the call is refused.
    - `context`: values for parameters declared `Injected(key)`, filled in at call time.
    - `injected_policy`: what to do when the model writes an injected parameter itself:
      "reject" (an error result) or "ignore" (drop it, note it, use the session's value).
    - `timeout`: seconds a tool may run.

    >>> box = LocalToolbox([len_of])                    # doctest: +SKIP
    >>> box.call("len_of", {"text": "abc"}).content     # doctest: +SKIP
    '3'
    """

    def __init__(self, tools: Sequence[Callable], *, hidden: Sequence[Callable] = (),
                 context: Mapping[str, Any] | None = None, injected_policy: str = "reject",
                 timeout: float = 5.0):
        self.functions = {fn.__name__: fn for fn in tools}
        self.hidden = {fn.__name__: fn for fn in hidden}
        self.context = dict(context or {})
        self.injected_policy, self.timeout = check_policy(injected_policy), timeout
        self._schemas = {name: tool_schema(fn) for name, fn in self.functions.items()}

    def schemas(self) -> list[dict]:
        return list(self._schemas.values())

    def call(self, name: str, arguments: dict) -> ToolResult:
        if name in self.hidden:
            return hidden_tool(name, arguments, list(self.functions))
        if name not in self.functions:
            return unknown_tool(name, arguments, list(self.functions))
        fn = self.functions[name]
        kept = drop_injected(name, arguments, list(injected_params(fn)), self.injected_policy)
        if isinstance(kept, ToolResult):
            return kept
        args, notes = kept
        problem = validation_error(self._schemas[name]["function"]["parameters"], args)
        if problem:
            return error_result(name, arguments, "invalid_arguments",
                                f"the arguments for {name} do not fit its schema: {problem}. "
                                f"Expected: {json.dumps(self._schemas[name]['function']['parameters'])}")
        for param, marker in injected_params(fn).items():
            if marker.key not in self.context:
                return error_result(name, arguments, "missing_context",
                                    f"the application has no {marker.key!r} to give {name}.")
            args[param] = self.context[marker.key]
        t0 = time.perf_counter()
        status, value = run_with_timeout(lambda: fn(**args), self.timeout)
        seconds = time.perf_counter() - t0
        if status == "timeout":
            result = error_result(name, arguments, "timeout",
                                  f"{name} did not finish within {self.timeout:g} s and was abandoned.",
                                  seconds)
        elif status == "error":
            result = error_result(name, arguments, "tool_error",
                                  f"{name} failed: {type(value).__name__}: {value}", seconds)
        else:
            result = ToolResult(name, arguments, True, as_content(value), None, seconds)
        result.notes = notes
        return result
