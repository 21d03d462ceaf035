"""LLM Kitchen · Tools: the helper package behind the notebooks.

The ideas each chapter teaches are typed out in the notebooks; this package holds the plumbing,
one folder per concept the chapters teach (tests/test_structure.py keeps the imports free of cycles):

    settings     the environment variables, where `data/` is, the optional installs        (all)
    model/       a chat model behind one interface: the decode loop, live, replayed,
                 scripted or served; which one runs, its weights, its engine setting         (all)
    tools/       the five toy tools, and tool schemas from Python functions                  (01–06)
    harness/     the loop, its toolbox, the protocols, the parsers; the APIs' server (09)    (01–07, 09)
    grammar/     call grammars from the schemas, the mask they put on the next token         (07)
    mcp/         a real MCP server and client, and the wire between                          (05, 09)
    bfcl/        the Berkeley Function Calling Leaderboard on the series' models             (08)
    exercises/   the checks behind each chapter's "Your turn"                                 (01–09)
    claims/      each chapter's claims about what a live model does, and their verdicts  (01–07, 09)
    chapters/    each chapter's own pieces: arithmetic, descriptions, tasks, lab, sweep      (01–06)
    views/       HTML, figures, widgets and diagrams                                          (all)

A notebook imports from here (`from kitchen import load_model`) or from a concept's package
(`from kitchen.harness import NativeProtocol`), never from a module deeper down. A package names
what it offers without importing it (`exports`), so `import kitchen.harness` loads no model code.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

__version__ = "0.1.0"


def exports(package: str, modules: dict[str, list[str]]) -> tuple[Callable[[str], Any], list[str]]:
    """A package's `__getattr__` and `__all__` for names it re-exports from its modules.

    Each name is imported from its module on first use (PEP 562), so importing a package costs
    nothing until a name is asked for, and no package import can close an import cycle.

    >>> getattr_, all_ = exports("kitchen.settings", {"kitchen.settings": ["DATA"]})
    >>> all_, getattr_("DATA").name
    (['DATA'], 'data')
    """
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(where[name]), name)

    return __getattr__, sorted(where)


__getattr__, __all__ = exports(__name__, {
    "kitchen.model.load": ["load_model"],
    "kitchen.harness.loop": ["Harness", "run_harness"],
    "kitchen.tools.schemas": ["tool_schema"],
    "kitchen.harness.parsing.robust": ["parse_tool_calls"],
})
