"""BFCL's cases read from the installed package, and their functions as JSON-schema tools
(`kitchen.bfcl.data`)."""

from collections import Counter

import jsonschema
import pytest

from kitchen.bfcl.data import CATEGORIES, load_cases, to_json_schema, tool_schemas
from kitchen.bfcl.grading import ground_truth_calls

CASES = load_cases()
ANSWERED = [c for c in CASES if c.answer]
JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}


def test_the_five_categories_come_from_the_package_with_bfcls_counts():
    counts = Counter(c.category for c in CASES)
    assert counts == {"simple_python": 400, "multiple": 200, "parallel": 200, "parallel_multiple": 200,
                      "irrelevance": 240}
    assert all(c.answer for c in CASES if c.category != "irrelevance")
    assert tuple(counts) == CATEGORIES


def test_an_unknown_category_is_refused_and_a_question_is_the_last_user_message():
    with pytest.raises(ValueError, match=r"Unknown BFCL categories \['java'\]"):
        load_cases(["simple_python", "java"])
    factorial = next(c for c in CASES if c.id == "simple_python_1")
    assert factorial.question == "Calculate the factorial of 5 using math functions."


def types_in(spec):
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "type":
                yield value
            if key in ("properties",):
                for sub in value.values():
                    yield from types_in(sub)
            elif key in ("items", "additionalProperties"):
                yield from types_in(value)
    elif isinstance(spec, list):
        for sub in spec:
            yield from types_in(sub)


def test_bfcl_types_become_json_schema_types_once_everywhere():
    seen = Counter(t for c in CASES for f in c.functions for t in types_in(f["parameters"]))
    assert {"dict", "float", "tuple", "any"} <= set(seen)  # BFCL's dialect is really there
    converted = Counter(t for c in CASES for tool in tool_schemas(c) for t in types_in(tool["function"]["parameters"]))
    assert set(converted) <= JSON_TYPES
    assert sum(converted.values()) == sum(seen.values())
    assert to_json_schema({"type": "tuple", "items": {"type": "float"}}) == {"type": "array", "items": {"type": "number"}}


def test_the_ground_truth_validates_against_the_converted_schemas():
    bad = []
    for case in ANSWERED:
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tool_schemas(case)}
        for c in ground_truth_calls(case):
            for error in jsonschema.Draft202012Validator(schemas[c.name]).iter_errors(c.arguments):
                bad.append((case.id, error.message))
    assert len(bad) <= 25, bad[:10]  # BFCL's answers are not always of the declared type (see the chapter)
