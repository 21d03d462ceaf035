"""The application's confirmation before a model's call changes something: `ConfirmDestructive`.

MCP revision 2025-11-25 lets a server describe what its tools do with `annotations` (server/tools,
"ToolAnnotations"): `readOnlyHint` (default false), `destructiveHint` (default true; meaningful
only when the tool is not read-only), `idempotentHint` and `openWorldHint`. The specification
also asks for a human in the loop who can deny a tool call. This policy joins the two: a call
of a tool that is not read-only, and not declared non-destructive, runs only if the
application's `ask(name, arguments)` returns True. A tool without annotations counts as
destructive, by the specification's defaults.

The question goes to the user through the application (a dialog, a button, a prompt on the
console), never to the model: the model cannot confirm its own call, and only reads the outcome.
A call that is not confirmed (the user said no, asking failed, or the application has no one to
ask) does not run; the model reads a tool result of kind `not_confirmed` that says so.

Annotations are hints from the server. The specification says clients MUST consider them
untrusted unless they come from trusted servers: a server can call a tool read-only that is not.
Keep `trust_hints=True` (the default) for a server you trust, such as this project's own; for
any other, `trust_hints=False` asks before every call, whatever the hints say.

>>> policy = ConfirmDestructive(lambda name, arguments: False)
>>> policy.needs_confirmation({"name": "calculator", "annotations": {"readOnlyHint": True}})
False
>>> policy.needs_confirmation({"name": "delete_file", "annotations": {"destructiveHint": True}})
True
>>> policy.needs_confirmation({"name": "anything"})  # no annotations: the specification's defaults
True
>>> policy.check("delete_file", {"path": "notes/todo.md"}, {"path": "notes/todo.md"}, {}).error_kind
'not_confirmed'
>>> policy.asked
[Asked(name='delete_file', arguments={'path': 'notes/todo.md'}, answer=False)]
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple

from kitchen.harness import refusals
from kitchen.harness.toolbox import ToolResult, error_result

Confirm = Callable[[str, dict], bool]
"""The application's question to its user: (tool name, arguments) -> True to run the call."""


class Asked(NamedTuple):
    """One question the policy put to the application, and the answer (False when asking failed)."""

    name: str
    arguments: dict
    answer: bool


class ConfirmDestructive:
    """Ask the application before a model's call of a tool that may change or destroy something.

    - `ask`: the application's `Confirm` callable; only an answer of exactly True runs the call.
      None means the application has no one to ask: every such call is refused.
    - `trust_hints`: read the server's annotations (the default); False asks before every call.

    `asked` lists every question and its answer, in order. Give it to `MCPToolbox(confirm=...)`,
    which asks it about the model's calls only: the application's own calls
    (`call_as_application`) are its own decision.
    """

    def __init__(self, ask: Confirm | None = None, *, trust_hints: bool = True):
        self.ask = ask
        self.trust_hints = trust_hints
        self.asked: list[Asked] = []

    def needs_confirmation(self, tool: Mapping[str, Any]) -> bool:
        """True if a call of `tool` (its MCP view, as `tools/list` gave it) must be confirmed first."""
        if not self.trust_hints:
            return True
        hints = tool.get("annotations") or {}
        if hints.get("readOnlyHint") is True:
            return False
        return hints.get("destructiveHint", True) is not False

    def check(self, name: str, args: dict, arguments: dict, tool: Mapping[str, Any]) -> ToolResult | None:
        """None when the call may run; else the result the model reads instead.

        `args` are what the call would send (shown to the user); `arguments` are what the model
        wrote (kept on the result).
        """
        if not self.needs_confirmation(tool):
            return None
        if self.ask is None:
            why = "it needs the user's confirmation, and this application has no way to ask for it"
            return error_result(name, arguments, "not_confirmed", refusals.not_confirmed(name, why))
        try:
            answer = self.ask(name, dict(args)) is True
            why = "the user declined"
        except Exception as err:  # noqa: BLE001 - a failing dialog means no confirmation, not a crash
            answer, why = False, f"asking the user to confirm it failed ({type(err).__name__}: {err})"
        self.asked.append(Asked(name, dict(args), answer))
        return None if answer else error_result(name, arguments, "not_confirmed", refusals.not_confirmed(name, why))

    def __repr__(self) -> str:
        asker = getattr(self.ask, "__name__", repr(self.ask)) if self.ask else "no one"
        return f"ConfirmDestructive(ask={asker}, trust_hints={self.trust_hints}, {len(self.asked)} asked)"
