"""Chapter 04's exercises: a parser for the call-tag format, run on real replies and on hostile
text, and a call written in that format.

The parser's contract: `parse(text) -> list of (tool name, input)` for every complete
`<call NAME>INPUT</call>` in `text`, INPUT without the spaces around it; it never raises.

>>> got = reference_parse('First <call calculator> 2 + 2 </call>, then <call calculator>3')
>>> got
[('calculator', '2 + 2')]
>>> check_call_tag_parser(reference_parse).status
'right'
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from kitchen.settings import DATA
from kitchen.harness.protocols import CallTagProtocol
from kitchen.tools.schemas import tool_schema
from kitchen.tools import search_rhymes
from kitchen.exercises.core import Feedback, blank, not_done, right, wrong

RESULTS = DATA / "experiments" / "protocol_results.json"  # chapter 04's committed comparison
OPENER = re.compile(r"<call\s+([A-Za-z_][\w-]*)\s*>")
SLOW = 0.5  # seconds: a parser slower than this on one text is stuck backtracking (a linear one takes microseconds)
HOSTILE = [
    ("", "an empty reply"),
    ("<call calculator>12 * 3", "a reply cut off before </call>"),
    ("<call>1 + 1</call>", "a call with no tool name"),
    ("</call> <call calculator>", "the tags the wrong way round"),
    ("Two sums: <call calculator>1 + 1</call> and <call calculator>2 + 2</call>", "two calls in one reply"),
    ("<call calculator>\n  12 * 3\n</call>", "an input on its own lines"),
    ("<result calculator>408</result>", "a result the model wrote itself, which is not a call"),
    ('calculator("1 + 1")', "a Python-style call, another format"),
    ("<call calculator>" * 3_000, "3,000 opening tags and no end"),
]


def reference_parse(text: str) -> list[tuple[str, str]]:
    """The calls this check expects: every complete `<call NAME>INPUT</call>`, INPUT stripped.

    One pass: cut the text at each `</call>`, and in each piece before one take the last opener.
    (A regex such as `<call (\\w+)>(.*?)</call>` gives the same calls, but on a text of many
    openers and no closer it tries every opener against the whole rest: minutes, not microseconds.)
    """
    calls = []
    for piece in text.split("</call>")[:-1]:
        start = piece.rfind("<call")
        opener = OPENER.match(piece, start) if start >= 0 else None
        if opener:
            calls.append((opener.group(1), piece[opener.end():].strip()))
    return calls


def real_replies() -> list[tuple[str, str]]:
    """The first replies of chapter 04's committed comparison in the call-tag format, both packs:
    (text, where it comes from)."""
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    return [(row["first_text"], f"{results[tier]['model']['model_name']}, asked {row['request']!r}")
            for tier in results for row in results[tier]["rows"] if row["protocol"] == "call_tag"]


def check_call_tag_parser(parse: Any) -> Feedback:
    """Run `parse` on the call-tag replies the two packs really wrote, then on hostile text; name
    every text where it raises, is slow, or finds other calls than it should."""
    ex = "04.call_tag_parser"
    if blank(parse):
        return not_done(ex, "`my_parse`")
    if not callable(parse):
        return wrong(ex, "`my_parse` should be a function: def my_parse(text): ...")
    try:
        if parse("<call calculator>1 + 1</call>") is None:
            return not_done(ex, "the body of `my_parse`")
    except Exception:  # the learner's code: the table below says where it fails
        pass
    table = real_replies() + HOSTILE
    problems = []
    for text, what in table:
        t0 = time.perf_counter()
        try:
            got = parse(text)
        except Exception as err:  # the learner's code: a raise is what this check looks for
            problems.append(f"{what}: it raised {type(err).__name__}")
            continue
        seconds = time.perf_counter() - t0
        expected = reference_parse(text)
        if seconds > SLOW:
            problems.append(f"{what}: it took {seconds:.1f} s")
        elif not isinstance(got, list) or [tuple(c) for c in got if isinstance(c, (list, tuple))] != expected:
            problems.append(f"{what}: expected {_short(expected)}, got {_short(got)}")
    if not problems:
        return right(ex, f"{len(table)} texts, {len(real_replies())} of them written by the packs: every call found, "
                         "nothing else, and no text made it raise or stall.")
    return wrong(ex, f"{len(table) - len(problems)} of {len(table)} texts right.\n  " + "\n  ".join(problems),
                 "Try the texts above one at a time. Model text is untrusted input: a parser must also "
                 "finish fast on text written to make it stall (cut the text at each </call> first).")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_call_tag_text(text: Any) -> Feedback:
    """The call-tag text that searches the rhymes for "star", one result only."""
    ex = "04.call_tag_text"
    if blank(text):
        return not_done(ex, "`text`")
    if not isinstance(text, str):
        return wrong(ex, "a call is text: write it as a string.")
    schemas = [tool_schema(search_rhymes)]
    found = CallTagProtocol().detect(text, schemas)
    if not found.calls:
        why = f" ({found.errors[0].message})" if found.errors else ""
        return wrong(ex, f"the chapter's call-tag protocol finds no call in it{why}.",
                     "The form is <call NAME>INPUT</call>; print(PROTOCOLS['call_tag'].instructions).")
    call = found.calls[0]
    if call.format != "call_tag":
        return wrong(ex, f"the protocol reads it, but as a {call.format} call: the exercise asks for the call-tag form.",
                     "<call NAME>INPUT</call>")
    if call.name != "search_rhymes":
        return wrong(ex, f"it calls {call.name!r}; the rhyme search is search_rhymes.")
    if str(call.arguments.get("query", "")).strip().lower() != "star":
        return wrong(ex, f"its query is {call.arguments.get('query')!r}, not 'star'.")
    if call.arguments.get("limit") != 1:
        return wrong(ex, f"the limit is {call.arguments.get('limit', 'left out')}, not 1.",
                     "With two arguments, INPUT is a JSON object of them.")
    return right(ex, f"the protocol reads search_rhymes({call.arguments}).")

