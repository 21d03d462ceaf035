"""The contract every format scanner keeps (`kitchen.harness.parsing.hits`): a verdict over a span
becomes a call or a failed attempt."""

from __future__ import annotations

from kitchen.harness.parsing import ParseError, ToolCall
from kitchen.harness.parsing.hits import Context, ScanVerdict, make_hit


def test_a_verdict_becomes_a_call_or_an_error_over_its_span() -> None:
    ctx = Context("say f() now", {}, [], 11)
    assert make_hit(ctx, "python", ScanVerdict("call", "f", None), 4, 7) == \
        ToolCall("f", {}, "python", "f()", 4, 7)
    error = make_hit(ctx, "python", ScanVerdict("bad_call", message="no"), 4, 7)
    assert error == ParseError("bad_call", "no", "f()", "python", 4, 7)
