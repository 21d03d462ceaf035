"""The package's structure rules, checked on the code itself (no model, no import of torch here).

- no import cycle between `kitchen` modules, counting imports inside functions too;
- no `kitchen` module imported inside a function (an import there would only hide a cycle);
- every module imports alone, in a fresh interpreter state;
- no function over 60 lines, no module over 400 lines (except `LONG_MODULES`, each with its why);
- every module is used by at least one test, and no test only imports a module.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kitchen"
TESTS = ROOT / "tests"
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400
LONG_MODULES: dict[str, str] = {}  # module -> why it may be longer (none today)
# Modules whose tests do not name them: module -> the tests that run them.
TESTED_BY_THE_STORY_SUITE = {f"kitchen.stories.ch0{n}": "tests/stories runs every registered claim"
                             for n in range(1, 8)}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def resolve(node: ast.ImportFrom | ast.Import, here: str, is_package: bool) -> list[str]:
    """The `kitchen` modules an import statement names (a package's names count as its __init__)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODULES]
    if node.level:
        base = here.split(".") if is_package else here.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    found = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    if target in MODULES and len(found) < len(node.names):
        found.append(target)
    return found


def imports(name: str) -> list[tuple[str, bool]]:
    """(imported kitchen module, inside a function?) for every import statement of a module."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    inside: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside |= {id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in resolve(node, name, path.name == "__init__.py"):
                if target != name:
                    out.append((target, id(node) in inside))
    return out


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_rules_find_what_they_look_for():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    node = ast.parse("from ..choice import TIERS").body[0]
    assert resolve(node, "kitchen.mcp.client", False) == ["kitchen.choice"]


def test_no_import_cycle_between_kitchen_modules_imports_in_functions_included():
    graph = {name: {t for t, _ in imports(name)} for name in MODULES}
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph))}"


def test_no_kitchen_module_is_imported_inside_a_function():
    found = [f"{name} imports {target}" for name in MODULES for target, inner in imports(name) if inner]
    assert found == []


def test_every_module_imports_alone():
    script = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m == 'kitchen' or m.startswith('kitchen.')]:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(name)\n"
    )
    result = subprocess.run([sys.executable, "-c", script, *MODULES], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]


def test_no_function_over_60_lines():
    long = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{name}.{node.name}: {lines} lines")
    assert long == []


def test_no_module_over_400_lines_except_the_named_ones():
    long = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}
    over = {name: n for name, n in long.items() if n > MAX_MODULE_LINES and name not in LONG_MODULES}
    assert over == {}
    assert set(LONG_MODULES) <= set(MODULES), "an exception names a module that is gone"


def test_every_module_is_used_by_a_test():
    text = "\n".join(p.read_text() for p in TESTS.rglob("*.py"))
    unused = []
    for name in MODULES:
        parent, _, last = name.rpartition(".")
        if name in text or (parent and f"from {parent} import" in text and last in text):
            continue
        if name in TESTED_BY_THE_STORY_SUITE:
            continue
        unused.append(name)
    assert unused == []


def _only_imports(fn: ast.FunctionDef) -> bool:
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)


@pytest.mark.parametrize("path", sorted(TESTS.rglob("test_*.py")), ids=lambda p: p.name)
def test_no_test_only_imports_a_module(path):
    tests = [n for n in ast.walk(ast.parse(path.read_text()))
             if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    assert [t.name for t in tests if _only_imports(t)] == []
