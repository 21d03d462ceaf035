"""The one error type the toy tools raise.

A `ToolError` means "your arguments were not acceptable": its message is written for a small
language model to read and act on, saying what was wrong and what would be accepted. The harness
turns it into a tool result instead of crashing. This module does nothing else.
"""


class ToolError(ValueError):
    """A tool refused its arguments; the message explains why and what would be accepted."""
