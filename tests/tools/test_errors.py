"""The one error type the toy tools raise (`kitchen.tools.errors`): arguments refused, in words a
model can act on."""

from __future__ import annotations

import pytest

from kitchen.harness.toolbox import LocalToolbox
from kitchen.tools import browse_files, calculator, count_words, fetch_page, search_rhymes
from kitchen.tools.errors import ToolError


def test_tool_error_is_a_value_error() -> None:
    assert issubclass(ToolError, ValueError)


@pytest.mark.parametrize("tool, arguments", [
    (calculator, {"expression": "1/0"}),
    (search_rhymes, {"query": "star", "limit": 0}),
    (count_words, {}),
    (fetch_page, {"url": "ftp://example.org"}),
    (browse_files, {"path": "/etc"}),
], ids=["calculator", "search_rhymes", "count_words", "fetch_page", "browse_files"])
def test_every_toy_tool_refuses_bad_arguments_with_a_tool_error(tool, arguments):
    with pytest.raises(ToolError) as caught:
        tool(**arguments)
    assert type(caught.value) is ToolError and len(str(caught.value)) > 20


def test_the_message_is_what_the_model_reads_back():
    message = "Give a rhyme title as text."
    with pytest.raises(ValueError, match=message):  # callers that know only ValueError catch it too
        raise ToolError(message)

    def picky(word: str) -> str:
        """Refuses everything.

        Args:
            word: Anything.
        """
        raise ToolError(message)

    result = LocalToolbox([picky]).call("picky", {"word": "x"})
    assert result.error_kind == "tool_error" and result.content.endswith(f"ToolError: {message}")
