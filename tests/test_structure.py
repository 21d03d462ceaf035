"""The package's structure rules, checked on the code itself (no model, no import of torch here).

- `kitchen/` has at most 12 entries, one folder per concept, and no two near-twin names;
- a package's `__init__` only names what it re-exports (`kitchen.exports`), each name real;
- no notebook imports from below a concept package's top (`kitchen` or `kitchen.<concept>`);
- no import cycle between `kitchen` modules, counting imports inside functions too;
- no `kitchen` module imported inside a function (an import there would only hide a cycle);
- every module imports alone, in a fresh interpreter state;
- no function over 60 lines, no module over 400 lines (except `LONG_MODULES`, each with its why);
- every module has its test file, mirroring the layout (`kitchen/harness/loop.py` is tested in
  `tests/harness/test_loop.py`), and no test only imports a module.
"""

from __future__ import annotations

import ast
import json
import re
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
# Modules without a test file of their own name: module -> the test that runs them.
TESTED_ELSEWHERE = {"kitchen.mcp.__main__": "tests/mcp/test_server.py reads its command line; tests/mcp/test_client.py "
                               "starts it as `python -m kitchen.mcp`"}
MAX_TOP_LEVEL = 12  # entries of kitchen/: a newcomer reads the whole list at once
NOTEBOOKS = ROOT / "notebooks"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def exported(package: str) -> dict[str, str]:
    """name -> module, as the package's `exports(__name__, {...})` call lists them."""
    for node in ast.walk(ast.parse(MODULES[package].read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "exports":
            table = ast.literal_eval(node.args[1])
            return {name: module for module, names in table.items() for name in names}
    return {}


EXPORTS = {package: exported(package) for package in PACKAGES}


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
    found += sorted({EXPORTS[target][a.name] for a in node.names if a.name in EXPORTS.get(target, {})})
    if target in MODULES and not found:
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
    node = ast.parse("from ..settings import DATA").body[0]
    assert resolve(node, "kitchen.mcp.client", False) == ["kitchen.settings"]
    node = ast.parse("from kitchen.tools import TOY_TOOLS").body[0]
    assert resolve(node, "kitchen.mcp.server", False) == ["kitchen.tools.toy"]
    assert near_twins(["recording", "recordings", "llama_serve", "llama_server", "schemas", "schema_text",
                       "parse_basic", "parsing", "int8", "int8_decode", "loop", "views"]) == [
        ("int8", "int8_decode"), ("llama_serve", "llama_server"), ("parse_basic", "parsing"),
        ("recording", "recordings"), ("schema_text", "schemas")]
    assert test_file_for("kitchen.harness.parsing.robust") == TESTS / "harness" / "parsing" / "test_robust.py"
    assert test_file_for("kitchen.settings") == TESTS / "test_settings.py"


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


def test_kitchen_has_at_most_12_entries_and_no_near_twin_names():
    entries = [p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"]
    assert len(entries) <= MAX_TOP_LEVEL, sorted(entries)
    assert near_twins({name.rpartition(".")[2] for name in MODULES}) == []


def _stem(word: str) -> str:
    return re.sub(r"(ings|ing|ers|er|es|s|e)$", "", word)


def near_twins(names) -> list[tuple[str, str]]:
    """Pairs of different names a reader would take for one another: the same word with another
    ending (`recording`, `recordings`), or a word and the same word with more after it (`int8`,
    `int8_decode`)."""
    names = sorted(set(names))
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            same_start = _stem(a.split("_")[0]) == _stem(b.split("_")[0]) and ("_" not in a or "_" not in b)
            if _stem(a) == _stem(b) or same_start:
                pairs.append((a, b))
    return pairs


def test_a_package_init_only_names_what_it_re_exports():
    allowed = (ast.Expr, ast.ImportFrom, ast.Assign)
    for package in PACKAGES - {"kitchen"}:
        body = ast.parse(MODULES[package].read_text()).body
        assert all(isinstance(node, allowed) for node in body), f"{package}: code belongs in a module"
        for name, module in EXPORTS[package].items():
            assert module.startswith(package + "."), f"{package} re-exports {name} from outside: {module}"
            assert module in MODULES, f"{package}: {module} is not a module"
            assert f"{package}.{name}" not in MODULES, f"{package}.{name} is both a module and a name"
            defined = {n.id for node in ast.walk(ast.parse(MODULES[module].read_text()))
                       if isinstance(node, (ast.Assign, ast.AnnAssign))
                       for n in (node.targets if isinstance(node, ast.Assign) else [node.target])
                       if isinstance(n, ast.Name)}
            defined |= {node.name for node in ast.walk(ast.parse(MODULES[module].read_text()))
                        if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
            defined |= {a.asname or a.name for node in ast.walk(ast.parse(MODULES[module].read_text()))
                        if isinstance(node, ast.ImportFrom) for a in node.names}
            assert name in defined, f"{package} re-exports {name}, which {module} does not have"


def notebook_imports(path: Path) -> list[str]:
    """The `kitchen` module each import statement of a notebook's code cells names."""
    found = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kitchen"):
                found.append(node.module)
            elif isinstance(node, ast.Import):
                found += [a.name for a in node.names if a.name.startswith("kitchen")]
    return found


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem[:2])
def test_no_notebook_imports_below_a_concept_package(path):
    deep = [m for m in notebook_imports(path) if m.count(".") > 1 or (m != "kitchen" and m not in MODULES)]
    assert deep == [], f"import these from `kitchen` or `kitchen.<concept>`: {deep}"


def test_file_for(module: str) -> Path:
    parts = module.split(".")[1:]
    return TESTS.joinpath(*parts[:-1], f"test_{parts[-1]}.py")


test_file_for.__test__ = False  # a helper, not a test


def test_every_module_has_its_test_file():
    missing = [f"{name}: {test_file_for(name).relative_to(ROOT)}" for name in MODULES
               if name not in PACKAGES and name not in TESTED_ELSEWHERE and not test_file_for(name).exists()]
    assert missing == []


def test_every_test_file_names_its_module():
    """A mirrored test file imports (or runs) the module it is named after."""
    unnamed = []
    for name in MODULES:
        if name in PACKAGES or not test_file_for(name).exists():
            continue
        path = test_file_for(name)
        parent, _, last = name.rpartition(".")
        text = path.read_text()
        if name not in text and not (f"from {parent} import" in text and last in text):
            unnamed.append(str(path.relative_to(ROOT)))
    assert unnamed == []


def _only_imports(fn: ast.FunctionDef) -> bool:
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return bool(body) and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in body)


@pytest.mark.parametrize("path", sorted(TESTS.rglob("test_*.py")), ids=lambda p: p.name)
def test_no_test_only_imports_a_module(path):
    tests = [n for n in ast.walk(ast.parse(path.read_text()))
             if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
    assert [t.name for t in tests if _only_imports(t)] == []
