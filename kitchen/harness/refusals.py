"""The sentences a model reads when a call is refused or fails, written once for every toolbox.

`kitchen.harness.toolbox` (local tools), `kitchen.mcp.server` (the same checks on the server),
`kitchen.mcp.client` (connection failures) and `kitchen.harness.loop` (repeated calls) all build their
messages here, so a refusal reads the same wherever it happens. Notebook outputs and recordings
hold these texts: change one and they change too.

What this module does not do: decide whether a call is refused (the toolboxes do), or wrap a
message as a result (`kitchen.harness.toolbox.error_result` adds the "Error (kind): " prefix).
"""

from __future__ import annotations

import json
from typing import Any, Sequence


def hidden_tool(name: str, available: Sequence[str]) -> str:
    """A tool that exists but not for the model.

    >>> hidden_tool("save_memory", ["calculator"])
    "the tool 'save_memory' is not available to you. Available tools: calculator."
    """
    return f"the tool {name!r} is not available to you. Available tools: {', '.join(available)}."


def unknown_tool(name: str, available: Sequence[str], where: str = "") -> str:
    """A tool that does not exist (`where`: e.g. " on the server").

    >>> unknown_tool("calc", ["calculator", "count_words"])
    "there is no tool named 'calc'. Available tools: calculator, count_words."
    """
    return f"there is no tool named {name!r}{where}. Available tools: {', '.join(available)}."


def injected_argument(name: str, key: str) -> str:
    """An argument the application supplies, written by the model.

    >>> injected_argument("my_notes", "user_id")
    "'user_id' is set by the application, not by you; call my_notes again without it."
    """
    return f"{key!r} is set by the application, not by you; call {name} again without it."


def dropped_argument(key: str, value: Any) -> str:
    """The note left when such an argument is dropped instead (policy "ignore")."""
    return f"dropped {key}={value!r} written by the model; the application supplies it"


def invalid_arguments(name: str, problem: str, parameters: dict) -> str:
    """Arguments that fail the tool's parameters schema, with the schema to follow."""
    return f"the arguments for {name} do not fit its schema: {problem}. Expected: {json.dumps(parameters)}"


def missing_context(name: str, key: str, detail: str = "") -> str:
    """The application has no value for an injected parameter (`detail`: where it looked)."""
    return f"the application has no {key!r} to give {name}{detail}."


def off_schema(name: str, problem: str) -> str:
    """A result whose structured content does not fit the tool's `outputSchema` (MCP 2025-11-25).

    >>> off_schema("f", "'3' is not of type 'integer' (at n)")
    "f returned a result that does not fit its output schema: '3' is not of type 'integer' (at n). The result was not used."
    """
    return f"{name} returned a result that does not fit its output schema: {problem}. The result was not used."


def not_confirmed(name: str, why: str) -> str:
    """A call held back because the user did not confirm it (`why`: they said no, or could not be asked).

    >>> not_confirmed("delete_file", "the user declined")
    'delete_file did not run: the user declined. Do not call it again for this; tell the user what you would have done.'
    """
    return f"{name} did not run: {why}. Do not call it again for this; tell the user what you would have done."


def tool_failed(name: str, err: BaseException) -> str:
    """The tool ran and raised.

    >>> tool_failed("calculator", ZeroDivisionError("division by zero"))
    'calculator failed: ZeroDivisionError: division by zero'
    """
    return f"{name} failed: {type(err).__name__}: {err}"


def timed_out(name: str, timeout: float) -> str:
    """The tool ran past its time limit."""
    return f"{name} did not finish within {timeout:g} s and was abandoned."


def repeated_call(name: str, earlier: str) -> str:
    """The same call again: the harness answers with the earlier result instead of running it."""
    return (f"you already called {name} with these arguments and got: {earlier} Do not repeat the call: "
            f"use that result to answer the user, or call a different tool.")


UNKNOWN_TOOL_ON_SERVER = "Unknown tool"  # how that message starts; the client recognises it by this


def unknown_on_server(name: str, available: Sequence[str]) -> str:
    """The MCP server's JSON-RPC error message for a tool it does not have (code -32602)."""
    return f"{UNKNOWN_TOOL_ON_SERVER}: {name}. Tools on this server: {', '.join(available)}"


def server_refused(name: str, code: int, message: str) -> str:
    """The MCP server answered a call with a JSON-RPC error."""
    return f"the MCP server refused the call to {name}: JSON-RPC error {code}: {message}"


def could_not_run(name: str, reason: str) -> str:
    """The connection to the MCP server is down (`reason`: closed, or why it stopped)."""
    return f"{name} could not run: {reason}. No result came back; the server is not restarted automatically."


def too_many_calls(run: int, skipped: int) -> str:
    """A reply with more calls than the harness runs at once.

    >>> too_many_calls(8, 3)
    'only the first 8 calls of a reply are run; the 3 after them were not. Call fewer tools at once.'
    """
    return (f"only the first {run} calls of a reply are run; the {skipped} after them were not. "
            "Call fewer tools at once.")


def too_many_errors(shown: int, skipped: int) -> str:
    """A reply with more calls that did not parse than the harness feeds back.

    >>> too_many_errors(3, 2997)
    '2997 more calls that did not parse were not reported, like the 3 above. Write one call correctly first.'
    """
    return (f"{skipped} more calls that did not parse were not reported, like the {shown} above. "
            "Write one call correctly first.")
