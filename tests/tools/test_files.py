"""The pretend file tree: listing, reading, refusing escapes, and never touching the real disk."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import io
import json
import os

import pytest

from kitchen.settings import DATA
from kitchen.tools.errors import ToolError
from kitchen.tools.files import browse_files, browse_tree, pretend_tree, remove_file

TREE = json.loads((DATA / "files.json").read_text(encoding="utf-8"))
files_module = importlib.import_module("kitchen.tools.files")


def names(listing: dict) -> list[str]:
    return [entry["name"] for entry in listing["entries"]]


def test_the_tree_has_the_expected_shape() -> None:
    assert {"notes", "recipes", "photos", "README.txt"} <= set(TREE)
    assert {"shopping.txt", "todo.md"} <= set(TREE["notes"])
    assert "pancakes.md" in TREE["recipes"]
    assert TREE["photos"] and all(isinstance(text, str) for text in TREE["photos"].values())


@pytest.mark.parametrize("path", [".", "", "./", "  .  ", ".//."])
def test_the_root_can_be_named_many_ways(path: str) -> None:
    listing = browse_files(path)
    assert listing["folder"] == "."
    assert names(listing) == ["notes", "photos", "recipes", "README.txt"]  # folders first


def test_the_default_is_the_root() -> None:
    assert browse_files() == browse_files(".")


def test_entries_have_type_and_size() -> None:
    entries = {entry["name"]: entry for entry in browse_files()["entries"]}
    assert entries["notes"] == {"name": "notes", "type": "folder", "size": len(TREE["notes"])}
    assert entries["README.txt"] == {"name": "README.txt", "type": "file", "size": len(TREE["README.txt"])}


@pytest.mark.parametrize("path", ["notes", "notes/", "./notes", "notes//", "./notes/."])
def test_a_folder_can_be_named_many_ways(path: str) -> None:
    assert browse_files(path) == {"folder": "notes", "entries": [
        {"name": "shopping.txt", "type": "file", "size": len(TREE["notes"]["shopping.txt"])},
        {"name": "todo.md", "type": "file", "size": len(TREE["notes"]["todo.md"])}]}


def test_reading_a_file() -> None:
    assert browse_files("notes/todo.md") == {"file": "notes/todo.md", "content": TREE["notes"]["todo.md"]}
    assert browse_files("./README.txt")["content"] == TREE["README.txt"]


def test_every_entry_can_be_reached_and_results_are_json() -> None:
    def walk(path: str, subtree: dict) -> int:
        listing = browse_files(path)
        json.dumps(listing)
        assert sorted(names(listing)) == sorted(subtree)
        seen = 0
        for name, value in subtree.items():
            child = name if path == "." else f"{path}/{name}"
            if isinstance(value, dict):
                seen += walk(child, value)
            else:
                assert browse_files(child) == {"file": child, "content": value}
                seen += 1
        return seen
    assert walk(".", TREE) >= 7


@pytest.mark.parametrize("path, says", [
    ("..", "'..'"),
    ("../etc/passwd", "'..'"),
    ("notes/../..", "'..'"),
    ("notes/../README.txt", "'..'"),
    ("/etc/passwd", "absolute path"),
    ("/", "absolute path"),
    ("C:\\Windows\\win.ini", "absolute path"),
    ("c:/Users", "absolute path"),
    ("\\\\server\\share", "absolute path"),
    ("~", "home folder"),
    ("~/.ssh/id_rsa", "home folder"),
    ("notes\\todo.md", "backslash"),
    ("notes/todo.md\x00.txt", "NUL"),
    (None, "must be text"),
])
def test_escapes_are_refused_clearly(path: object, says: str) -> None:
    with pytest.raises(ToolError) as caught:
        browse_files(path)  # type: ignore[arg-type]
    assert says in str(caught.value)


@pytest.mark.parametrize("path, folder, listed", [
    ("notes/missing.txt", "notes", ["shopping.txt", "todo.md"]),
    ("nowhere/deeper/still", ".", ["notes", "photos", "recipes", "README.txt"]),
    ("readme.txt", ".", ["README.txt"]),
    ("recipes/cake.md", "recipes", ["pancakes.md"]),
])
def test_missing_paths_list_the_nearest_folder(path: str, folder: str, listed: list[str]) -> None:
    with pytest.raises(ToolError) as caught:
        browse_files(path)
    message = str(caught.value)
    assert f"There is no {path!r}" in message and f"The folder {folder!r} contains" in message
    assert all(name in message for name in listed)


def test_a_file_is_not_a_folder() -> None:
    with pytest.raises(ToolError, match="is a file, not a folder"):
        browse_files("notes/todo.md/more")


def test_results_are_copies() -> None:
    browse_files("notes")["entries"].clear()
    assert len(browse_files("notes")["entries"]) == 2


def test_a_copy_of_the_tree_changes_alone() -> None:
    tree = pretend_tree()
    assert tree == TREE and browse_tree(tree, "notes") == browse_files("notes")
    assert remove_file(tree, "./notes//todo.md") == ("notes/todo.md", TREE["notes"]["todo.md"])
    assert names(browse_tree(tree, "notes")) == ["shopping.txt"]
    assert names(browse_files("notes")) == ["shopping.txt", "todo.md"]  # the shared tree is as it was
    assert pretend_tree() == TREE  # and so is the next copy


@pytest.mark.parametrize("path, says", [
    ("notes/todo.md", "There is no 'notes/todo.md'"),  # already removed below
    ("notes", "'notes' is a folder; only files can be deleted"),
    (".", "'.' is a folder"),
    ("notes/shopping.txt/x", "is a file, not a folder"),
    ("../etc/passwd", "'..'"),
    ("/etc/passwd", "absolute path"),
])
def test_remove_file_refuses_what_is_not_a_file_of_the_tree(path: str, says: str) -> None:
    tree = pretend_tree()
    remove_file(tree, "notes/todo.md")
    before = json.dumps(tree)
    with pytest.raises(ToolError) as caught:
        remove_file(tree, path)
    assert says in str(caught.value) and json.dumps(tree) == before


def test_never_touches_the_real_file_system(monkeypatch: pytest.MonkeyPatch) -> None:
    browse_files()  # load the data file first: that one read is allowed
    touched: list[str] = []

    def tripwire(name: str):
        def refuse(*args, **kwargs):
            touched.append(name)
            raise AssertionError(f"browse_files touched the real file system: {name}{args}")
        return refuse

    for module, name in [(builtins, "open"), (io, "open"), (os, "open"), (os, "stat"), (os, "lstat"),
                         (os, "listdir"), (os, "scandir"), (os, "access"), (os.path, "exists")]:
        monkeypatch.setattr(module, name, tripwire(f"{module.__name__}.{name}"))
    answers = []
    for path in [".", "notes", "notes/todo.md", "../etc/passwd", "/etc/passwd", "nowhere", "README.txt/x"]:
        try:
            answers.append(browse_files(path))
        except ToolError as err:
            answers.append(str(err))
    copy = pretend_tree()
    removed = remove_file(copy, "notes/todo.md")
    monkeypatch.undo()
    assert touched == []
    assert len(answers) == 7 and answers[2]["content"] == TREE["notes"]["todo.md"]
    assert removed[0] == "notes/todo.md" and "todo.md" not in copy["notes"]
    assert json.loads((DATA / "files.json").read_text(encoding="utf-8")) == TREE  # the data file is as it was


def test_the_module_imports_nothing_that_reaches_the_disk() -> None:
    tree = ast.parse(inspect.getsource(files_module))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"os", "os.path", "pathlib", "shutil", "glob", "io", "subprocess"}
