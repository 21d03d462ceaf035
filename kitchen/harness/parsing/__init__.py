"""Finding tool calls in a model's text.

- `basic`: the plain parse chapter 04 types out: tags and `json.loads`, a message per failure.
- `robust`: `parse_tool_calls`, the parser the harness uses; it never raises. Its parts, by job:
  `results` (what a parse returns), `scanning`, `known_tools`, `hits`, `json_calls`, `formats`,
  `named_formats` and `merging`.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.harness.parsing.robust": ["parse_tool_calls"],
    "kitchen.harness.parsing.results": ["ERROR_KINDS", "FORMATS", "NATIVE_FORMATS", "Hit", "ParseError", "ParseResult", "ToolCall"],
    "kitchen.harness.parsing.known_tools": ["bare_value_parameter"],
})
