"""Chapter 01's claims: arithmetic without tools is wrong, with the calculator right."""

from __future__ import annotations

import math

from kitchen.chapters.arithmetic import check_work, departure, extract_answer, find_answer
from kitchen.harness.loop import run_harness
from kitchen.chapters.lab import exact_answer, answer_line
from kitchen.tools import calculator
from kitchen.claims.core import BIG_PACK, CODER_15, LLAMA_PYTHON_05, LLAMA_SERVER_05, SMALL_PACK, claim, recorded

QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]
RIGHT = 1234 * 5678
LONG_QUESTION = ("What is 1234 × 5678? Work it out with long multiplication: "
                 "one row for each digit of 5678, then add the rows.")
OWN_SUM = "What is 987 × 654?"
SMALL_HERE = SMALL_PACK
# Claims about the text (not about probabilities) also hold on the same GGUF file behind both of
# llama.cpp's servers (the server phase of `make test` runs the chapter on llama-server).
SMALL_TEXT = SMALL_HERE + LLAMA_PYTHON_05 + LLAMA_SERVER_05
# Shown from a recording (600 tokens take minutes live): the recording's own setting.
BIG_RECORDED = BIG_PACK + recorded(CODER_15)


def tools_off(model):
    """The question alone, greedy, with the top ten candidates at each step."""
    return model.generate(QUESTION, top_k=10)


def with_calculator(model) -> dict:
    """The question through the harness with the calculator, and `<tool_call>`'s log-probability
    at the reply's first token."""
    trace = run_harness(model, QUESTION, [calculator])
    if model.info.source == "server":  # a server does not score a given text (see kitchen.model.server.client)
        return {"trace": trace, "tag_logprob": None}
    (_, tag_logprob), = model.logprobs(model.render(QUESTION, [calculator]), "<tool_call>")
    return {"trace": trace, "tag_logprob": tag_logprob}


def long_multiplication(model):
    return model.generate([{"role": "user", "content": LONG_QUESTION}], max_new_tokens=600)


def own_sum(model):
    return run_harness(model, OWN_SUM, [calculator])


@claim("01.wrong_without_tools", "without tools, the 0.5B pack answers 1234 × 5678 wrong", "0.5b",
       SMALL_TEXT, tools_off)
def _wrong(reply) -> tuple[bool, str]:
    found = extract_answer(reply.text)
    if found is None:
        return False, "its reply holds no number"
    return found != RIGHT, f"it answered {found:,}; the right answer is {RIGHT:,}"


@claim("01.digits_one_token_each", "each digit of its answer is a token of its own", "0.5b", SMALL_TEXT,
       tools_off)
def _digits(reply) -> tuple[bool, str]:
    found = find_answer(reply.text)
    if found is None:
        return False, "its reply holds no number"
    _, start, end = found
    pieces, position = [], 0
    for token in reply.tokens:
        if start <= position < end and token.text.strip(", "):
            pieces.append(token.text.strip(", "))
        position += len(token.text)
    ok = bool(pieces) and all(len(p) == 1 and p.isdigit() for p in pieces)
    return ok, f"the answer's pieces: {pieces}"


@claim("01.departs_after_a_right_start", "its answer starts with the right digits, then departs from them",
       "0.5b", SMALL_TEXT, tools_off)
def _departs(reply) -> tuple[bool, str]:
    d = departure(reply, RIGHT)
    if d is None:
        return False, "its answer is right, or it gave none"
    return d.digit_index > 0, d.summary()


@claim("01.calculator_right", "with the calculator, it writes a call and the harness ends on 7,006,652",
       "0.5b", SMALL_TEXT, with_calculator)
def _calculator(evidence) -> tuple[bool, str]:
    trace = evidence["trace"]
    calls = [c.name for s in trace.steps for c in s.parsed.calls]
    ran = [r.content for r in trace.results if r.ok and r.name == "calculator"]
    right = trace.stop_reason == "answer" and extract_answer(trace.answer or "") == RIGHT
    return ("calculator" in calls and "7006652" in ran and right,
            f"calls written: {calls}; calculator results: {ran}; {answer_line(trace.answer or '', RIGHT)}")


@claim("01.no_tags", "it writes the call without the <tool_call> tags: the tag's probability at the first "
       "token is below one in a million", "0.5b", SMALL_HERE, with_calculator)
def _no_tags(evidence) -> tuple[bool, str]:
    text = evidence["trace"].steps[0].text
    if evidence["tag_logprob"] is None:
        return False, f"the tag in its text: {'<tool_call>' in text}; its probability: not given by this source"
    p = math.exp(evidence["tag_logprob"])
    return ("<tool_call>" not in text and p < 1e-6,
            f"the tag in its text: {'<tool_call>' in text}; its probability at the first token: {p:.2g}")


@claim("01.long_rows_wrong", "the 1.5B pack's long multiplication is wrong, and its rows do not lead to the "
       "right total", "1.5b", BIG_RECORDED, long_multiplication, source="replay")
def _long(reply) -> tuple[bool, str]:
    work = check_work(reply.text, 1234, 5678)
    placed = sum(r.right and not r.unshifted for r in work.rows)
    return (not work.answer_right and work.rows != [] and placed < len(work.rows),
            f"answer {work.answer}; {len(work.rows)} rows found, {placed} right and in their place")


@claim("01.own_sum_right", "with the calculator, the 0.5B pack answers 987 × 654 right", "0.5b", SMALL_TEXT,
       own_sum)
def _own_sum(trace) -> tuple[bool, str]:
    line = answer_line(trace.answer or "", exact_answer(OWN_SUM))
    return "✓ right" in line, line
