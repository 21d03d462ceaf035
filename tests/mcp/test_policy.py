"""The application's confirmation before a model's call changes something (`kitchen.mcp.policy`),
on tool views written here (no server; the policy on a live toolbox is in test_client.py)."""

from __future__ import annotations

import doctest
import importlib

import pytest

from kitchen.mcp.policy import Asked, ConfirmDestructive
from kitchen.mcp.structured import TOOL_HINTS

READ_ONLY = {"name": "calculator", "annotations": TOOL_HINTS["calculator"]}
DESTRUCTIVE = {"name": "delete_file", "annotations": TOOL_HINTS["delete_file"]}
ADDITIVE = {"name": "save_memory", "annotations": TOOL_HINTS["save_memory"]}
BARE = {"name": "mystery"}  # a server that says nothing about the tool
ARGS = {"path": "notes/todo.md"}


class Dialog:
    """The application's confirmation dialog: records each question, answers `answer`."""

    def __init__(self, answer=True):
        self.answer, self.questions = answer, []

    def __call__(self, name, arguments):
        self.questions.append((name, arguments))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize("tool, trusted, asks", [
    (READ_ONLY, True, False),
    (DESTRUCTIVE, True, True),
    (ADDITIVE, True, False),                                      # destructiveHint false: only adds
    (BARE, True, True),                                           # the specification's defaults
    ({"name": "x", "annotations": {"readOnlyHint": False}}, True, True),   # destructiveHint defaults to true
    ({"name": "x", "annotations": {"destructiveHint": False}}, True, False),
    (READ_ONLY, False, True),                                     # hints from an untrusted server count for nothing
    (ADDITIVE, False, True),
])
def test_which_tools_need_confirmation(tool, trusted, asks):
    assert ConfirmDestructive(Dialog(), trust_hints=trusted).needs_confirmation(tool) is asks


def test_a_read_only_tool_is_never_asked_about():
    dialog = Dialog(answer=False)
    policy = ConfirmDestructive(dialog)
    assert policy.check("calculator", {"expression": "1+1"}, {"expression": "1+1"}, READ_ONLY) is None
    assert dialog.questions == [] and policy.asked == []


def test_a_yes_lets_the_call_run_and_is_recorded():
    dialog = Dialog(answer=True)
    policy = ConfirmDestructive(dialog)
    assert policy.check("delete_file", ARGS, ARGS, DESTRUCTIVE) is None
    assert dialog.questions == [("delete_file", ARGS)]
    assert policy.asked == [Asked("delete_file", ARGS, True)]


@pytest.mark.parametrize("answer, says", [
    (False, "the user declined"),
    ("yes", "the user declined"),      # only True itself confirms
    (None, "the user declined"),
    (RuntimeError("no display"), "asking the user to confirm it failed (RuntimeError: no display)"),
])
def test_anything_but_true_holds_the_call_back(answer, says):
    policy = ConfirmDestructive(Dialog(answer))
    result = policy.check("delete_file", ARGS, {**ARGS, "user_id": "bob"}, DESTRUCTIVE)
    assert not result.ok and result.error_kind == "not_confirmed"
    assert result.content == f"Error (not_confirmed): delete_file did not run: {says}. Do not call it again for this; " \
                             "tell the user what you would have done."
    assert result.arguments == {**ARGS, "user_id": "bob"}  # what the model wrote
    assert policy.asked == [Asked("delete_file", ARGS, False)]  # what the user was shown


def test_with_no_one_to_ask_a_destructive_call_never_runs():
    policy = ConfirmDestructive()
    result = policy.check("delete_file", ARGS, ARGS, DESTRUCTIVE)
    assert result.error_kind == "not_confirmed" and "this application has no way to ask" in result.content
    assert policy.check("calculator", {}, {}, READ_ONLY) is None and policy.asked == []


def test_the_user_is_shown_a_copy_of_the_arguments():
    def meddle(name, arguments):
        arguments["path"] = "README.txt"
        return True

    args = dict(ARGS)
    assert ConfirmDestructive(meddle).check("delete_file", args, args, DESTRUCTIVE) is None
    assert args == ARGS


def test_docstring_examples():
    result = doctest.testmod(importlib.import_module("kitchen.mcp.policy"))
    assert result.attempted >= 4 and result.failed == 0
