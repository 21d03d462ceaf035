"""Chapter 07's claims: a grammar makes the call valid on both packs; it does not choose the tool."""

from __future__ import annotations

from kitchen.grammar.calls import CALL_OPEN
from kitchen.harness.loop import run_harness
from kitchen.tools import TOY_TOOLS
from kitchen.claims.core import BIG_PACK, SMALL_PACK, claim

SMALL_HERE = SMALL_PACK
BIG_HERE = BIG_PACK
PRODUCT = "What is 987 × 654?"
NOTES = "Which files are in the notes folder?"


def required_product(model):
    """987 × 654 with all five tools and tool_choice="required"."""
    return run_harness(model, PRODUCT, TOY_TOOLS, tool_choice="required", max_steps=3, max_new_tokens=120)


def required_notes(model):
    """The notes folder question, its first reply held to "required"."""
    return run_harness(model, NOTES, TOY_TOOLS, tool_choice="required", max_steps=1, max_new_tokens=120)


def none_product(model):
    """987 × 654 with all five tools and tool_choice="none"."""
    return run_harness(model, PRODUCT, TOY_TOOLS, tool_choice="none", max_steps=1, max_new_tokens=120)


def _valid_call_right_answer(trace) -> tuple[bool, str]:
    first = trace.steps[0]
    call = first.parsed.calls[0] if first.parsed.calls else None
    ok = (call is not None and call.name == "calculator" and first.results[0].ok
          and "645498" in (trace.answer or "").replace(",", ""))
    return ok, f"first reply {first.text!r}; answer {trace.answer!r}"


@claim("07.required_small", "under tool_choice='required' the 0.5B pack writes a valid calculator call for "
       "987 × 654 and answers 645,498", "0.5b", SMALL_HERE, required_product)
def _required_small(trace) -> tuple[bool, str]:
    return _valid_call_right_answer(trace)


@claim("07.required_large", "under tool_choice='required' the 1.5B pack writes a valid calculator call for "
       "987 × 654 and answers 645,498", "1.5b", BIG_HERE, required_product)
def _required_large(trace) -> tuple[bool, str]:
    return _valid_call_right_answer(trace)


@claim("07.form_not_choice", "asked which files are in the notes folder, the 0.5B pack under 'required' writes "
       "a valid call, to fetch_page: the grammar fixed the form, not the tool", "0.5b", SMALL_HERE, required_notes)
def _form_not_choice(trace) -> tuple[bool, str]:
    first = trace.steps[0]
    names = [c.name for c in first.parsed.calls]
    return names == ["fetch_page"] and not first.parsed.errors, f"it wrote {first.text!r}"


@claim("07.none_writes_no_call", "under tool_choice='none' the 0.5B pack writes no call token and nothing runs",
       "0.5b", SMALL_HERE, none_product)
def _none(trace) -> tuple[bool, str]:
    first = trace.steps[0]
    ok = CALL_OPEN not in first.generation.token_ids and trace.results == []
    return ok, f"it wrote {first.text[:120]!r}"
