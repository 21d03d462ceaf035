"""Chapter 02's claims: examples in a description become arguments; what a forced start does; Toolformer's test."""

from __future__ import annotations

import json
import re

from kitchen.chapters.descriptions import count_words_schema
from kitchen.harness.parsing import parse_tool_calls
from kitchen.tools.schemas import tool_schema
from kitchen.tools import TOY_TOOLS, calculator, search_rhymes
from kitchen.claims.core import BIG_PACK, SMALL_PACK, claim

SMALL_HERE = SMALL_PACK
BIG_HERE = BIG_PACK
# A request that names no text: a value has to come from somewhere.
COUNT_MINE = [{"role": "user", "content": "Count the words in my text, please."}]
EXAMPLES = ("Humpty Dumpty", "the cat sat on the mat")
HELLO = [{"role": "user", "content": "Hello! What is your name?"}]
PREFIXES = ("", "<tool_call>\n", '<tool_call>\n{"name": "')
QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]
CALL = {"role": "assistant", "content": "",
        "tool_calls": [{"type": "function", "function": {"name": "calculator",
                                                          "arguments": {"expression": "1234 * 5678"}}}]}
LEAD, ANSWER = "1234 × 5678 = ", "7006652"


def with_and_without_examples(model) -> dict:
    """The first reply to a request that gives no text, count_words described with and without examples."""
    out = {}
    for with_examples in (True, False):
        schemas = [tool_schema(search_rhymes), count_words_schema(with_examples)]
        reply = model.generate(COUNT_MINE, schemas, stop=["</tool_call>"], max_new_tokens=100)
        calls = parse_tool_calls(reply.text, tools=schemas).calls
        out["with" if with_examples else "without"] = [(c.name, c.arguments) for c in calls]
    return out


def copied(calls) -> list[str]:
    """The description's example values that appear in the calls' arguments."""
    text = json.dumps([args for _, args in calls]).lower()
    return [e for e in EXAMPLES if e.lower() in text]


def forced_starts(model) -> dict:
    """A question no tool answers, the assistant's turn started three ways."""
    return {prefix: model.generate(HELLO, TOY_TOOLS, prefix=prefix, stop=["</tool_call>"], max_new_tokens=60)
            for prefix in PREFIXES}


def toolformer_contexts(model) -> dict[str, str]:
    """The prompts after which the answer's digits are scored (Toolformer's comparison)."""
    return {
        "question alone": model.render(QUESTION) + LEAD,
        "question + tool listed": model.render(QUESTION, [calculator]) + LEAD,
        "call without its result": model.render(QUESTION + [CALL], [calculator]) + LEAD,
        "call + result": model.render(QUESTION + [CALL, {"role": "tool", "name": "calculator",
                                                          "content": calculator("1234 * 5678")}],
                                      [calculator]) + LEAD,
    }


def toolformer(model) -> dict[str, list[tuple[str, float]]]:
    return {name: model.logprobs(prompt, ANSWER) for name, prompt in toolformer_contexts(model).items()}


def _examples_claim(tier: str, measured) -> None:
    @claim(f"02.copies_examples_{tier}", f"with example values in count_words' description the {tier.upper()} "
           f"pack copies one into its call; without them it copies none", tier, measured, with_and_without_examples)
    def _check(evidence) -> tuple[bool, str]:
        with_, without = copied(evidence["with"]), copied(evidence["without"])
        return bool(with_) and not without, (f"with examples it called {evidence['with']}; "
                                             f"without: {evidence['without']}")


_examples_claim("0.5b", SMALL_HERE)
_examples_claim("1.5b", BIG_HERE)


def restated(calls) -> list[str]:
    """Arguments of count_words calls that only restate their parameter: every word of the value
    (two or more) comes from the parameter's name or description, as in rhyme_title="The rhyme title."

    >>> restated([("count_words", {"text": "Hello there", "rhyme_title": "The rhyme title."})])
    ["rhyme_title='The rhyme title.'"]
    """
    properties = count_words_schema(False)["function"]["parameters"]["properties"]
    found = []
    for name, arguments in calls:
        for param, value in (arguments.items() if name == "count_words" and isinstance(arguments, dict) else ()):
            words = re.findall(r"[a-z]+", str(value).lower())
            own = set(re.findall(r"[a-z]+", f"{param} {properties.get(param, {}).get('description', '')}".lower()))
            if param in properties and len(words) >= 2 and set(words) <= own:
                found.append(f"{param}={value!r}")
    return found


@claim("02.restates_the_parameter", "without examples, the 0.5B pack fills an argument with words taken from "
       "that parameter's own name and description", "0.5b", SMALL_HERE, with_and_without_examples)
def _restates(evidence) -> tuple[bool, str]:
    found = restated(evidence["without"])
    return bool(found), f"arguments that restate their parameter: {found or 'none'}; the call: {evidence['without']}"


@claim("02.toolformer", "the call with its result makes the right answer far more likely than the question "
       "alone, the tool listed, or the call without its result", "0.5b", SMALL_HERE, toolformer)
def _toolformer(scores) -> tuple[bool, str]:
    totals = {name: sum(lp for _, lp in pieces) for name, pieces in scores.items()}
    best_other = max(v for k, v in totals.items() if k != "call + result")
    return totals["call + result"] > best_other + 5, ", ".join(f"{k}: {v:.1f}" for k, v in totals.items())



@claim("02.forced_start", "started with the tag alone the 0.5B pack ends its turn at once; started with the "
       "first characters of the JSON as well, it writes a call to one of the tools", "0.5b", SMALL_HERE,
       forced_starts)
def _forced(replies) -> tuple[bool, str]:
    tag_only, json_start = replies[PREFIXES[1]].text.strip(), replies[PREFIXES[2]].text
    names = [t.__name__ for t in TOY_TOOLS]
    named = next((n for n in names if json_start.startswith(n + '"')), None)
    return tag_only == "" and named is not None, (f"after the tag alone: {tag_only!r}; after the JSON start: "
                                                 f"{json_start[:60]!r}")
