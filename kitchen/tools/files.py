"""A pretend file tree that the model can browse: list a folder or read a file.

What it does: loads a small tree from `data/files.json` into memory once (a JSON object is a
folder, a string is a file's content) and answers paths relative to its top folder, such as
".", "notes", "notes/" or "notes/todo.md".

The same walk works on a copy of the tree (`pretend_tree`, `browse_tree`), and `remove_file`
deletes a file from such a copy: chapter 05's MCP server keeps one of its own for its destructive
`delete_file` tool, so a deletion changes that server's copy and nothing else.

What it deliberately does not do: it never touches the real file system. Paths are only ever
looked up in that in-memory tree, never joined to, resolved against or checked on a real disk.
Paths that try to leave the tree, or that only make sense on a real disk, are refused with a clear
message: absolute paths (/etc/passwd, C:\\..., ~), any '..' step, backslashes and NUL characters.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Any

from kitchen.settings import DATA
from kitchen.tools.errors import ToolError

FILES_FILE = DATA / "files.json"
Tree = dict[str, Any]  # name -> Tree (a folder) or str (a file's content)
_EXAMPLE = 'such as "notes" or "notes/todo.md" ("." is the top folder)'


@functools.cache
def _tree() -> Tree:
    return json.loads(FILES_FILE.read_text(encoding="utf-8"))


def _parts(path: str) -> list[str]:
    """The names along a relative path, after refusing anything that tries to leave the tree.

    >>> _parts("./notes//todo.md"), _parts("."), _parts("recipes/")
    (['notes', 'todo.md'], [], ['recipes'])
    """
    if not isinstance(path, str):
        raise ToolError(f"The path must be text, {_EXAMPLE}.")
    if "\x00" in path:
        raise ToolError(f"The path contains a NUL character, which is not allowed; "
                        f"give a plain path {_EXAMPLE}.")
    path = path.strip()
    if path.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", path):
        raise ToolError(f"{path!r} is an absolute path, which is not allowed: paths are relative to the "
                        f"top of the user's pretend file tree, {_EXAMPLE}.")
    if path.startswith("~"):
        raise ToolError(f"{path!r} starts with ~ (a home folder), which is not allowed: paths are relative "
                        f"to the top of the user's pretend file tree, {_EXAMPLE}.")
    if "\\" in path:
        raise ToolError(f"{path!r} contains a backslash, which is not allowed: separate folder names "
                        "with forward slashes, like notes/todo.md.")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ToolError(f"{path!r} uses '..', which is not allowed: there is nothing above the top of the "
                        f"pretend file tree, so write paths from the top, {_EXAMPLE}.")
    return parts


def _listing(folder: Tree) -> list[dict[str, Any]]:
    """Folders first, then files, each in name order."""
    names = sorted(folder, key=lambda name: (isinstance(folder[name], str), name.lower()))
    return [{"name": name,
             "type": "file" if isinstance(folder[name], str) else "folder",
             "size": len(folder[name])}
            for name in names]


def browse_files(path: str = ".") -> dict:
    """List a folder or read a file in the user's pretend file tree. Use it to see which files the user
    has and to read them. Paths are relative to the top folder and use forward slashes: "." is the top,
    then a folder's name, then a name inside it after a slash. A folder gives its entries, each with a name, a type ("file"
    or "folder") and a size (characters for a file, items for a folder); a file gives its content.

    Args:
        path: The folder or file to open, relative to the top folder, as folder/file;
            "." means the top folder.

    Returns:
        {"folder": path, "entries": [...]} for a folder, or {"file": path, "content": text} for a file.

    Raises:
        ToolError: If the path does not exist (the message lists what does), or tries to leave the
            tree: absolute paths, '..', backslashes and NUL characters are refused.

    Example:
        >>> [entry["name"] for entry in browse_files("notes")["entries"]]
        ['shopping.txt', 'todo.md']
    """
    return browse_tree(_tree(), path)


def pretend_tree() -> Tree:
    """A fresh copy of the pretend file tree, to change without changing anyone else's."""
    return copy.deepcopy(_tree())


def browse_tree(tree: Tree, path: str = ".") -> dict:
    """`browse_files` over the given tree, e.g. a copy from `pretend_tree()`.

    >>> tree = pretend_tree()
    >>> del tree["notes"]["todo.md"]
    >>> [entry["name"] for entry in browse_tree(tree, "notes")["entries"]]
    ['shopping.txt']
    """
    parts = _parts(path)
    node = _find(tree, parts)
    where = "/".join(parts) or "."
    if isinstance(node, str):
        return {"file": where, "content": node}
    return {"folder": where, "entries": _listing(node)}


def remove_file(tree: Tree, path: str) -> tuple[str, str]:
    """Delete one file from `tree` (an in-memory copy, never a real disk): its path and its old content.

    Folders are not deleted; a path that is not there, or that tries to leave the tree, is refused
    with the same messages as `browse_files`.

    >>> tree = pretend_tree()
    >>> remove_file(tree, "./notes/todo.md")[0], sorted(tree["notes"])
    ('notes/todo.md', ['shopping.txt'])
    """
    parts = _parts(path)
    node = _find(tree, parts)
    where = "/".join(parts) or "."
    if not isinstance(node, str):
        raise ToolError(f"{where!r} is a folder; only files can be deleted, one at a time, "
                        f"such as notes/todo.md.")
    folder = _find(tree, parts[:-1])
    assert isinstance(folder, dict)  # `node` was found inside it
    del folder[parts[-1]]
    return where, node


def _find(tree: Tree, parts: list[str]) -> Tree | str:
    """The folder or file at `parts`, or a ToolError that says what is there instead."""
    node: Tree | str = tree
    for depth, name in enumerate(parts):
        here = "/".join(parts[:depth]) or "."
        if isinstance(node, str):
            raise ToolError(f"{here!r} is a file, not a folder, so there is no {name!r} inside it. "
                            f'Open {here!r} itself to read it.')
        if name not in node:
            entries = ", ".join(entry["name"] for entry in _listing(node)) or "nothing"
            raise ToolError(f"There is no {'/'.join(parts)!r} in the pretend file tree. "
                            f"The folder {here!r} contains: {entries}.")
        node = node[name]
    return node
