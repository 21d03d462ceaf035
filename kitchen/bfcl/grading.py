"""Grading a reply the way BFCL does: its own AST checker, from the installed `bfcl-eval`.

`grade` takes the calls the project's parser found in a reply and returns BFCL's verdict and
error type (for example "simple_function_checker:wrong_count", "value_error:string",
"multiple_function_checker:wrong_func_name"). For irrelevance a reply is right when it holds no
call, as in BFCL's relevance runner. Does not find calls in text (`kitchen.harness.parsing`).
"""

from __future__ import annotations

import functools
import sys
import types
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Sequence

from kitchen.harness.parsing import ToolCall
from kitchen.bfcl.data import Case

MODEL_NAME = "llm-kitchen"  # the name BFCL's checker is given (it only looks up the config below)
NO_CALL = "ast_decoder:decoder_failed"  # BFCL's error type for a reply it cannot read as calls
IRRELEVANT_CALL = "irrelevance_error:decoder_success"  # BFCL's: a call where none was wanted


@dataclass
class BfclGrade:
    """BFCL's verdict on one reply: right or not, BFCL's error type, and its messages."""

    valid: bool
    error_type: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def error_family(self) -> str:
        """The error type's family in words (the chapter's error analysis groups by it)."""
        return error_family(self.error_type)


@functools.cache
def _checker():
    """BFCL's `ast_checker` and the `Language` it takes, imported once."""
    if "bfcl_eval.constants.model_config" not in sys.modules:
        try:
            import bfcl_eval.constants.model_config  # noqa: F401  (only with every API client installed)
        except ImportError:
            # Stand-in: the real module imports every API client BFCL supports; the checker reads it only to
            # ask whether a model's function names had "." replaced by "_" (ours keep their dots, as Qwen's do).
            stand_in = types.ModuleType("bfcl_eval.constants.model_config")
            stand_in.MODEL_CONFIG_MAPPING = defaultdict(lambda: types.SimpleNamespace(underscore_to_dot=False))
            sys.modules[stand_in.__name__] = stand_in
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    return ast_checker, Language.PYTHON


def as_bfcl_calls(calls: Sequence[Any]) -> list[dict]:
    """Calls (anything with `name` and `arguments`) in BFCL's decoded form, [{name: {arg: value}}].

    >>> from types import SimpleNamespace as Call
    >>> as_bfcl_calls([Call(name="math.hypot", arguments={"x": 4, "y": 5})])
    [{'math.hypot': {'x': 4, 'y': 5}}]
    """
    return [{c.name: dict(c.arguments)} for c in calls]


def grade(case: Case, calls: Sequence[Any]) -> BfclGrade:
    """BFCL's verdict on the calls found in a reply to `case`.

    >>> from kitchen.bfcl.data import load_cases
    >>> from types import SimpleNamespace as Call
    >>> case = load_cases(["simple_python"])[1]  # the factorial of 5
    >>> grade(case, [Call(name="math.factorial", arguments={"number": 5})]).valid
    True
    >>> grade(case, [Call(name="math.factorial", arguments={"number": 6})]).error_type
    'value_error:others'
    """
    decoded = as_bfcl_calls(calls)
    if case.category == "irrelevance":
        if decoded:
            return BfclGrade(False, IRRELEVANT_CALL, ["Valid syntax. Successfully decode AST when it should not."])
        return BfclGrade(True)
    if not decoded:
        return BfclGrade(False, NO_CALL, ["No function call was found in the reply."])
    ast_checker, python = _checker()
    try:
        result = ast_checker(case.functions, decoded, case.answer, python, case.category, MODEL_NAME)
    except Exception as err:  # the checker assumes well-formed input; a model's odd values must not stop a run
        return BfclGrade(False, "checker_error", [f"BFCL's checker raised {type(err).__name__}: {err}"])
    if result["valid"]:
        return BfclGrade(True)
    return BfclGrade(False, result.get("error_type", ""), list(result.get("error", [])))


def _pick(options: list) -> Any:
    """The first allowed value that is not "" ("" means: may be left out); inside a chosen dict
    (or a list of dicts) each key again lists its allowed values."""
    value = next(v for v in options if v != "")
    return _resolved(value)


def _resolved(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _pick(v) for k, v in value.items() if "" not in v}
    if isinstance(value, list):
        return [_resolved(v) for v in value]
    return value


def ground_truth_calls(case: Case) -> list[Any]:
    """One right reply to `case`, as calls: BFCL's first allowed value for every argument it
    wants (one it allows to be left out, "" among its values, is left out unless the function
    requires it).

    >>> from kitchen.bfcl.data import load_cases
    >>> ground_truth_calls(load_cases(["simple_python"])[0])
    [ToolCall(name='calculate_triangle_area', arguments={'base': 10, 'height': 5}, ...)]
    """
    required = {f["name"]: set((f.get("parameters") or {}).get("required") or []) for f in case.functions}
    calls = []
    for item in case.answer or []:
        ((name, params),) = item.items()
        arguments = {k: _pick(v) for k, v in params.items()
                     if "" not in v or (k in required.get(name, ()) and any(x != "" for x in v))}
        calls.append(ToolCall(name, arguments, "bfcl", "", 0, 0))
    return calls


FAMILIES = {
    "wrong_func_name": "wrong function", "wrong_count": "wrong count", "cannot_find_match": "a call that matches no answer",
    "missing_required": "missing argument", "missing_optional": "wrong value",
    "unexpected_param": "extra argument", "type_error": "wrong type", "value_error": "wrong value",
    "decoder_failed": "no call", "decoder_success": "call where none was wanted", "checker_error": "unparsable",
}


def error_family(error_type: str) -> str:
    """BFCL's error type grouped as chapter 08 counts them.

    >>> error_family("value_error:string"), error_family("simple_function_checker:wrong_func_name")
    ('wrong value', 'wrong function')
    """
    if not error_type:
        return ""
    for key, family in FAMILIES.items():
        if key in error_type:
            return family
    return "other"
