"""Chapter 07's Lark grammars as GBNF, the grammar language of llama.cpp's server.

llguidance (the local models' constrained decoding) reads Lark; llama.cpp reads GBNF. This
translates the Lark that `kitchen.grammar.calls` writes, and hand-written grammars like chapter 07's
`tiny_grammar`: rules and terminals, quoted strings, token ids (`<[151657]>`, which GBNF writes
the same way), regular expressions, `%json {schema}` (through llama-cpp-python's own JSON-schema
converter), grouping, `|`, `?`, `*` and `+`. Anything else (`%import`, `~`, `..` ranges, a regex
flag other than `s`) raises a `GrammarError` naming it. `start` becomes GBNF's `root`.

One difference stays: llama.cpp lets a special token such as `<tool_call>` stand for its text
("<", "tool_call", ">" are characters a free-text rule allows), where llguidance allows a special
token only where the grammar names it by id. `banned_tokens` lists the ones a grammar does not
name, for the request's `logit_bias`; inside free text that a named token may also start (the
"auto" grammar), only the check of the reply against the Lark grammar catches it.

Owns the translation. Does not send a grammar (`kitchen.model.server.client`) or check a reply against
one (`kitchen.grammar.mask`).

>>> print(lark_to_gbnf('start: "Hi" NAME\\nNAME: /[a-z]+/'))
root ::= "Hi" NAME
NAME ::= re0
re0 ::= [a-z]+
"""

from __future__ import annotations

import ast
import json
import re

from typing import TYPE_CHECKING, Sequence

from kitchen.settings import need
from kitchen.grammar.calls import GrammarError

if TYPE_CHECKING:
    from llama_cpp.llama_grammar import SchemaConverter

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RULE_START = re.compile(r"\s*[?!]?([A-Za-z_][A-Za-z0-9_]*)\s*:")  # Lark's ?rule and !rule mean the same texts
_TOKEN_ID = re.compile(r"<\[(\d+)\]>")
_SHORTHANDS = {"s": " \t\n\r\x0b\x0c", "d": "0123456789",
               "w": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\x0c", "v": "\x0b"}
DOTALL = "[\\U00000000-\\U0010FFFF]"  # any character, as llama-cpp-python's converter writes it
_SAFE = re.compile(r"[A-Za-z0-9 _,:;!@#%&=<>'`{}~.*+?()|$/]")  # written as they are inside a class


def lark_to_gbnf(lark: str) -> str:
    """The GBNF grammar that allows the same texts as `lark` (one rule per line, `root` first)."""
    # llama.cpp's library loads only when needed, and comes with the `server` extra
    SchemaConverter = need("llama_cpp.llama_grammar", "server").SchemaConverter

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=True)
    rules: dict[str, list[str]] = {}
    current: list[str] | None = None
    i, n, blocks = 0, len(lark), 0
    referenced: set[tuple[str, int]] = set()
    while i < n:
        c = lark[i]
        at_line_start = i == 0 or lark[i - 1] == "\n"
        start = _RULE_START.match(lark, i) if at_line_start else None
        if start:
            current = rules.setdefault(start.group(1), [])
            if current:
                current.append("|")
            i = start.end()
        elif c.isspace():
            i += 1
        elif lark.startswith("//", i):
            i = lark.find("\n", i) if "\n" in lark[i:] else n
        elif current is None:
            raise GrammarError(f"Lark text before the first rule: {lark[i:i + 40]!r}")
        elif c == '"':
            end = _closing(lark, i, '"', "A string") + 1
            current.append(_gbnf_string(_string_value(lark[i:end])))
            i = end
            if lark.startswith("..", i) or re.match(r"i\b", lark[i:]):
                raise GrammarError(f"No GBNF translation here for {lark[i - 3:i + 6]!r} (a range or a "
                                   "case-insensitive string); write a regex such as /[a-z]/.")
        elif c == "/":
            pattern, flags, i = _regex_at(lark, i)
            current.append(_regex_rule(converter, pattern, flags, f"re{sum(k.startswith('re') for k in converter._rules)}"))
        elif c == "<" and _TOKEN_ID.match(lark, i):
            current.append(_TOKEN_ID.match(lark, i).group(0))
            i = _TOKEN_ID.match(lark, i).end()
        elif lark.startswith("%json", i):
            schema, i = _json_at(lark, _skip_space(lark, i + len("%json")))
            current.append(_json_rule(converter, schema, f"json{blocks}"))
            blocks += 1
        elif c in "()|*+?":
            current.append(c)
            i += 1
        elif _NAME.match(lark, i):
            current.append(_NAME.match(lark, i).group(0))
            referenced.add((current[-1], i))
            i = _NAME.match(lark, i).end()
        else:
            raise GrammarError(f"No GBNF translation for this part of the grammar: {lark[i:i + 40]!r}")
    if "start" not in rules:
        raise GrammarError("The grammar has no `start` rule.")
    undefined = sorted(name for name, _ in referenced if name not in rules)
    if undefined:
        raise GrammarError(f"The grammar uses {undefined[0]!r} but does not define it.")
    return _assemble(rules, converter)


def banned_tokens(lark: str, special: Sequence[int], end_of_turn: Sequence[int]) -> list[int]:
    """The special token ids a reply under `lark` may not hold: all but those the grammar names
    (`<[151657]>`) and the end of the turn.

    >>> banned_tokens('start: <[151657]> "x"', [151644, 151645, 151657], [151645])
    [151644]
    """
    named = {int(m.group(1)) for m in _TOKEN_ID.finditer(lark)}
    return [t for t in special if t not in named and t not in end_of_turn]


def _assemble(rules: dict[str, list[str]], converter: SchemaConverter) -> str:
    """Lark's rules (renamed where GBNF needs it) first, then the converter's."""
    taken = set(converter._rules)

    def gbnf_name(name: str) -> str:
        if name == "start":
            return "root"
        name = name.replace("_", "-")
        return f"{name}-lark" if name in taken else name

    lines = []
    for name in sorted(rules, key=lambda r: r != "start"):
        body = [gbnf_name(p) if p in rules else p for p in rules[name]]
        lines.append(f"{gbnf_name(name)} ::= {' '.join(body)}")
    written = " ".join(lines + list(converter._rules.values()))
    lines += [f"{k} ::= {v}" for k, v in sorted(converter._rules.items())
              if k != "space" or re.search(r"\bspace\b", written)]  # the converter always adds `space`
    return "\n".join(lines)


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _json_at(text: str, i: int) -> tuple[dict, int]:
    try:
        schema, end = json.JSONDecoder().raw_decode(text, i)
    except ValueError as err:
        raise GrammarError(f"The schema after %json is not JSON: {err}") from None
    if not isinstance(schema, dict):
        raise GrammarError(f"The schema after %json is not an object: {text[i:i + 40]!r}")
    return schema, end


def _closing(text: str, i: int, close: str, what: str) -> int:
    """The index of the `close` that ends what opens at `i` (a backslash escapes the next character)."""
    j = i + 1
    while j < len(text) and text[j] != close:
        j += 2 if text[j] == "\\" else 1
    if j >= len(text):
        raise GrammarError(f"{what} that never ends: {text[i:i + 40]!r}")
    return j


def _string_value(literal: str) -> str:
    try:
        return ast.literal_eval(literal)
    except (ValueError, SyntaxError) as err:
        raise GrammarError(f"A string Lark would not read: {literal[:40]!r} ({err})") from None


def _gbnf_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return '"' + escaped.replace("\t", "\\t") + '"'


def _regex_at(text: str, i: int) -> tuple[str, str, int]:
    """The regex that opens at `i` (its pattern, its flags, the index past them)."""
    j, in_class = i + 1, False
    while j < len(text) and (text[j] != "/" or in_class):
        if text[j] == "\\":
            j += 1
        elif text[j] == "[":
            in_class = True
        elif text[j] == "]":
            in_class = False
        j += 1
    if j >= len(text):
        raise GrammarError(f"A regular expression that never ends: {text[i:i + 40]!r}")
    flags = re.match(r"[a-z]*", text[j + 1:]).group(0)
    return text[i + 1:j], flags, j + 1 + len(flags)


def _regex_rule(converter: SchemaConverter, pattern: str, flags: str, name: str) -> str:
    """A rule for a Lark regex: character classes and escapes rewritten first (GBNF's classes
    know no `\\s`, `\\-` or `\\/`), the rest translated by llama-cpp-python's regex converter."""
    if set(flags) - {"s"}:
        raise GrammarError(f"The regex flag(s) {flags!r} of /{pattern}/ have no GBNF translation here.")
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "[":
            end = _closing(pattern, i, "]", "A character class")
            out.append(_gbnf_class(pattern[i + 1:end]))
            i = end + 1
        elif c == "\\" and i + 1 < len(pattern):
            out.append(_gbnf_class(pattern[i:i + 2]))
            i += 2
        elif c == ".":
            out.append(DOTALL if "s" in flags else "[^\\x0A\\x0D]")
            i += 1
        elif c == '"':
            out.append("[\\x22]")
            i += 1
        else:
            out.append(c)
            i += 1
    try:
        return converter._visit_pattern("^" + "".join(out) + "$", name)
    except (AssertionError, ValueError) as err:
        raise GrammarError(f"The regex /{pattern}/ has no GBNF translation here: {err}") from None


def _gbnf_class(body: str) -> str:
    """A regex character class's inside (or one escape) as a GBNF class.

    >>> _gbnf_class(r"^{`\\s")
    '[^{` \\\\x09\\\\x0A\\\\x0D\\\\x0B\\\\x0C]'
    >>> _gbnf_class(r"\\s\\S")
    '[\\\\U00000000-\\\\U0010FFFF]'
    """
    negated = body.startswith("^") and len(body) > 1
    body = body[1:] if negated else body
    items, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            e = body[i + 1]
            i += 2
            if e.lower() in _SHORTHANDS and e.isupper():
                if f"\\{e.lower()}" in body:  # [\s\S] and the like: any character
                    return DOTALL
                raise GrammarError(f"\\{e} inside a class [{body}] has no GBNF translation here.")
            items += [_class_char(x) for x in _SHORTHANDS.get(e, _ESCAPES.get(e, e))]
        elif c == "-" and items and i + 1 < len(body):
            items.append("-")
            i += 1
        else:
            items.append(_class_char(c))
            i += 1
    return "[" + ("^" if negated else "") + "".join(items) + "]"


def _class_char(c: str) -> str:
    if _SAFE.match(c) or ord(c) > 0x7F:
        return c
    return f"\\x{ord(c):02X}"


def _json_rule(converter: SchemaConverter, schema: dict, name: str) -> str:
    """A rule for a `%json` schema. llguidance's own options (`x-guidance`) are dropped: the
    converter writes JSON with ", " and ": " (a space allowed after each, never a newline)."""
    schema = {k: v for k, v in schema.items() if k != "x-guidance"}
    try:
        schema = converter.resolve_refs(schema, name)
        rule = converter.visit(schema, name)
    except (AssertionError, ValueError, KeyError, TypeError) as err:
        raise GrammarError(f"This %json schema has no GBNF translation here: {err}") from None
    body = converter._rules.get(rule, rule)
    if body.endswith(" space"):  # the converter lets a space follow a value; not the whole call
        converter._rules[name] = body[: -len(" space")]
        return name
    return rule
