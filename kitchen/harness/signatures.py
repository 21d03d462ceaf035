"""A tool's schema read for a prompt: its parts, its types in words or Python, example values.

It owns turning one tool schema (any form `kitchen.tools.schemas.as_schema` accepts) into the pieces a
prompt-based protocol writes: a parameter's type in words (`type_words`) or in Python
(`python_type`, `python_signature`), plausible values (`example_value`, `example_arguments`), a
JSON value as Python source (`python_literal`), and which parameter a bare value fills
(`plain_parameter`, the parser's own rule). It writes no whole prompt and finds no calls: that is
`kitchen.harness.protocols` and `kitchen.harness.parsing`. `kitchen.harness.protocols` re-exports the public names.

>>> def count(word: str, limit: int = 3) -> int:
...     '''Count a word.
...
...     Args:
...         word: The word to count.
...         limit: The most to count.
...     '''
>>> python_signature(count)
'def count(word: str, limit: int | None = None):'
>>> print(tool_entry(count))
### count
Count a word.
Arguments:
- "word" (string, required): The word to count.
- "limit" (integer, optional): The most to count.
"""

from __future__ import annotations

import json
import re
from typing import Any

from kitchen.harness.parsing import bare_value_parameter
from kitchen.tools.schemas import as_schema

_PYTHON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool",
                 "array": "list", "object": "dict", "null": "None"}
# The toy tools' descriptions say e.g. "...".
_EXAMPLE_IN_TEXT = re.compile(r'e\.g\.,?\s*"([^"\n]+)"')


def tool_function(schema: dict) -> dict:
    """The inner ``function`` part of a tool in any form `as_schema` accepts (a function, the
    chat-template view, the MCP view)."""
    return as_schema(schema)["function"]


def tool_parameters(schema: dict) -> tuple[dict[str, dict], list[str]]:
    """(properties, required) of a tool's schema, tolerant of missing pieces."""
    params = tool_function(schema).get("parameters") or {}
    properties = params.get("properties") or {}
    required = [r for r in params.get("required") or [] if r in properties]
    return properties, required


def type_words(prop: dict) -> str:
    """A parameter's JSON schema type in words.

    >>> type_words({"type": "array", "items": {"type": "string"}})
    'array of string'
    >>> type_words({"type": "string", "enum": ["a", "b"]})
    'string, one of "a", "b"'
    """
    kind = prop.get("type", "any")
    words = " or ".join(kind) if isinstance(kind, list) else str(kind)
    items = prop.get("items")
    if words == "array" and isinstance(items, dict) and "type" in items:
        words += f" of {type_words(items)}"
    if isinstance(prop.get("enum"), list):
        words += ", one of " + ", ".join(json.dumps(v) for v in prop["enum"])
    return words


def example_value(prop: dict) -> Any:
    """A plausible value for a parameter, taken from its schema: an example, a default, the first
    choice of an enum, a quoted value after "e.g." in a string's description, else a placeholder
    of the right type.

    >>> example_value({"type": "string", "description": 'A word, e.g. "sheep".'})
    'sheep'
    >>> example_value({"type": "integer"})
    1
    """
    for key in ("examples", "enum"):
        if isinstance(prop.get(key), list) and prop[key]:
            return prop[key][0]
    if "default" in prop:
        return prop["default"]
    kind = prop.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    found = _EXAMPLE_IN_TEXT.search(str(prop.get("description", "")))
    if kind in ("string", None) and found:
        return found.group(1)
    placeholders = {"integer": 1, "number": 1.5, "boolean": True, "array": [], "object": {}}
    return placeholders.get(kind, "...")


def example_arguments(schema: dict) -> dict[str, Any]:
    """Arguments for an example call: the required parameters (or the first one, if none is)."""
    properties, required = tool_parameters(schema)
    names = required or list(properties)[:1]
    return {name: example_value(properties[name]) for name in names}


def plain_parameter(schema: dict) -> str | None:
    """The parameter that a bare value fills in, the way `kitchen.harness.parsing` reads a ``<call>`` body:
    the one required parameter, or else the first parameter (`bare_value_parameter`)."""
    properties, required = tool_parameters(schema)
    return bare_value_parameter(list(properties), required)


def python_type(prop: dict) -> str:
    """A parameter's JSON schema type as a Python annotation.

    >>> python_type({"type": "array", "items": {"type": "integer"}})
    'list[int]'
    """
    kind = prop.get("type")
    if isinstance(kind, list):
        return " | ".join(_PYTHON_TYPES.get(k, "object") for k in kind) or "object"
    if kind == "array" and isinstance(prop.get("items"), dict) and "type" in prop["items"]:
        return f"list[{python_type(prop['items'])}]"
    return _PYTHON_TYPES.get(kind, "object")


def python_literal(value: Any) -> str:
    """A JSON value as Python source: strings in double quotes, True/False/None.

    >>> python_literal({"a": [True, None, "x"]})
    '{"a": [True, None, "x"]}'
    """
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid Python literal
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = (f"{python_literal(str(k))}: {python_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return repr(value)


def python_signature(schema: dict) -> str:
    """The ``def`` line of a tool: its parameters with Python types, optional ones `= None`."""
    properties, required = tool_parameters(schema)
    parts = []
    for pname, prop in properties.items():
        kind = python_type(prop)
        if pname in required:
            parts.append(f"{pname}: {kind}")
        elif "default" in prop:
            parts.append(f"{pname}: {kind} = {python_literal(prop['default'])}")
        else:
            optional = kind if "None" in kind.split(" | ") else f"{kind} | None"
            parts.append(f"{pname}: {optional} = None")
    names = list(properties)
    first_optional = next((i for i, n in enumerate(names) if n not in required), len(names))
    if any(names.index(r) > first_optional for r in required):
        # A required parameter after an optional one is legal only keyword-only.
        parts.insert(0, "*")
    return f"def {tool_function(schema)['name']}({', '.join(parts)}):"


def tool_entry(schema: dict) -> str:
    """One tool's entry in a prompt's list of tools: its name, description and parameters."""
    f = tool_function(schema)
    properties, required = tool_parameters(schema)
    description = str(f.get("description", "")).strip() or "(no description)"
    lines = [f"### {f.get('name', '?')}", description]
    if properties:
        lines.append("Arguments:")
        for pname, prop in properties.items():
            need = "required" if pname in required else "optional"
            about = str(prop.get("description", "")).strip()
            line = f'- "{pname}" ({type_words(prop)}, {need})'
            lines.append(line + (f": {about}" if about else ""))
    else:
        lines.append("Arguments: none.")
    return "\n".join(lines)


def python_docstring(schema: dict) -> str:
    """A tool's description and parameters as the docstring of its ``def`` (indented, quoted)."""
    f = tool_function(schema)
    properties, required = tool_parameters(schema)
    doc = [str(f.get("description", "")).strip() or "(no description)"]
    if properties:
        doc += ["", "Args:"]
        for pname, prop in properties.items():
            about = str(prop.get("description", "")).strip()
            flag = "" if pname in required else "(optional) "
            doc.append(f"    {pname}: {flag}{about}".rstrip())
    text = "\n".join(f"    {line}" if line else "" for line in doc).replace('"""', '\\"\\"\\"')
    return f'    """{text.lstrip()}\n    """'
