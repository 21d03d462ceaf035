"""Putting the formats' hits together (`kitchen.harness.parsing.merging`): which hit wins where two
overlap, and the prose left over."""

from __future__ import annotations

from kitchen.harness.parsing import ParseError, ToolCall
from kitchen.harness.parsing.merging import merge, non_overlapping, prose, removed_spans
from kitchen.harness.parsing.scanning import find_fences


def test_merge_keeps_priority_but_a_call_beats_failed_attempts() -> None:
    tags = ParseError("truncated", "", "", "qwen", 0, 10)
    call = ToolCall("f", {}, "json", "", 2, 8)
    assert merge([tags], [call]) == [call]
    kept = ToolCall("g", {}, "qwen", "", 0, 10)
    assert merge([kept], [call]) == [kept]
    assert non_overlapping([call, ToolCall("h", {}, "json", "", 3, 9), tags]) == [tags]


def test_prose_closes_the_hole_a_call_leaves() -> None:
    assert prose("Sure.\nCALL\nDone.", [(6, 10)]) == "Sure.\nDone."
    assert prose("Sure. CALL", [(6, 10)]) == "Sure."


def test_the_backticks_or_the_fence_around_nothing_but_calls_are_cut_too() -> None:
    text = "Run `f()` now."
    call = ToolCall("f", {}, "python", "f()", 5, 8)
    assert removed_spans(text, [call], []) == [(4, 9)]
    fenced = "Look:\n```python\nf()\n```\nDone."
    call = ToolCall("f", {}, "python", "f()", fenced.index("f()"), fenced.index("f()") + 3)
    assert prose(fenced, removed_spans(fenced, [call], find_fences(fenced))) == "Look:\nDone."
    shared = "```python\nf()\nprint(1)\n```"  # the fence holds other code: it stays
    call = ToolCall("f", {}, "python", "f()", 10, 13)
    assert removed_spans(shared, [call], find_fences(shared)) == [(10, 13)]
