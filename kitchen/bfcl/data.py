"""BFCL's single-turn cases, read from the installed `bfcl-eval` package, and their tools.

Owns `load_cases` (the five categories chapter 08 runs) and the conversion of BFCL's function
docs (its own dialect: "dict", "float", "tuple", "any") into the JSON-schema tools Qwen's chat
template renders. Does not grade (`kitchen.bfcl.grading`) or run a model (`kitchen.bfcl.runner`).

>>> to_json_schema({"type": "dict", "properties": {"x": {"type": "float"}}})
{'type': 'object', 'properties': {'x': {'type': 'number'}}}
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
VERSION_PREFIX = "BFCL_v4"  # the data files' names in bfcl-eval 2026.3.23


@dataclass(frozen=True)
class Case:
    """One BFCL question: its messages, the functions offered and (except irrelevance) the
    possible answers, in BFCL's own form."""

    id: str
    category: str
    messages: list[dict]
    functions: list[dict]  # BFCL's dialect, as the grader reads them
    answer: list[dict] | None  # [{name: {param: [allowed values]}}], None for irrelevance

    @property
    def question(self) -> str:
        return next(m["content"] for m in reversed(self.messages) if m["role"] == "user")


def _read_lines(*parts: str) -> list[dict]:
    path = resources.files("bfcl_eval").joinpath("data", *parts)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_cases(categories: Sequence[str] = CATEGORIES) -> list[Case]:
    """Every case of `categories`, in BFCL's order (simple_python has 400, irrelevance 240, the
    others 200).

    >>> [c.id for c in load_cases(["parallel"])[:2]]
    ['parallel_0', 'parallel_1']
    """
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise ValueError(f"Unknown BFCL categories {unknown}; chapter 08 runs {list(CATEGORIES)}.")
    cases = []
    for category in categories:
        answers: dict[str, Any] = {}
        if category != "irrelevance":
            answers = {a["id"]: a["ground_truth"]
                       for a in _read_lines("possible_answer", f"{VERSION_PREFIX}_{category}.json")}
        for entry in _read_lines(f"{VERSION_PREFIX}_{category}.json"):
            cases.append(Case(entry["id"], category, entry["question"][0], entry["function"],
                              answers.get(entry["id"])))
    return cases


def _type_map() -> dict[str, str]:
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI

    return GORILLA_TO_OPENAPI


def to_json_schema(spec: Any) -> Any:
    """A BFCL parameter spec with every "type" in JSON-schema terms (BFCL's own mapping), at
    every depth (properties, items, additionalProperties); other keys are kept."""
    if isinstance(spec, list):
        return [to_json_schema(s) for s in spec]
    if not isinstance(spec, dict):
        return spec
    out = {}
    for key, value in spec.items():
        if key == "type" and isinstance(value, str):
            out[key] = _type_map().get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            out[key] = to_json_schema(value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def described(functions: list[dict], category: str) -> list[dict]:
    """The functions as BFCL shows them to a model: its own pre-processing adds a note on the
    language to each description ("Note that the provided function is in Python 3 syntax.")."""
    from bfcl_eval.utils import _func_doc_language_specific_pre_processing

    return _func_doc_language_specific_pre_processing(copy.deepcopy(functions), category)


def tool_schemas(case: Case) -> list[dict]:
    """The case's functions as chat-template tools: BFCL's description, JSON-schema types.

    >>> tool = tool_schemas(load_cases(["simple_python"])[0])[0]["function"]
    >>> tool["name"], tool["parameters"]["type"], tool["parameters"]["properties"]["base"]["type"]
    ('calculate_triangle_area', 'object', 'integer')
    """
    return [{"type": "function", "function": {"name": f["name"], "description": f.get("description", ""),
                                              "parameters": to_json_schema(f.get("parameters") or {})}}
            for f in described(case.functions, case.category)]
