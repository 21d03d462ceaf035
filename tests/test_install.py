"""The installs by audience: every package `kitchen/` imports is declared in pyproject.toml and pinned.

- each third-party module imported anywhere in `kitchen/` belongs to a distribution that
  pyproject.toml declares (the learner set or an extra) or a hash-pinned data file lists, and that
  requirements.lock (or that file) pins with `==`; the installed version is the pinned one;
- a module imported at the top of a `kitchen/` module comes with the learner set, so `make lab`
  (no extras) can import every chapter's plumbing; an extra's module is imported inside a function,
  through `kitchen.settings.need`, which names the extra when it is missing.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from pathlib import Path

import pytest

from kitchen.settings import EXTRAS, MissingExtra, need

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
DATA_FILES = sorted(ROOT.glob("requirements-*.txt"))  # the packs and BFCL: --no-deps, --require-hashes
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s;]+)")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> dict[str, str]:
    """{distribution: version} for each `name==version` line of a requirements file."""
    from packaging.markers import Marker

    found = {}
    for line in path.read_text().splitlines():
        requirement, _, marker = line.split("#")[0].partition(";")
        if (m := PIN.match(requirement.strip())) and (not marker.strip() or Marker(marker.strip()).evaluate()):
            found[canonical(m[1])] = m[2]  # a pin for another Python than this one is not this one's
    return found


def declared() -> dict[str, set[str]]:
    """{audience: distributions}: "learner" for pyproject's dependencies, then one entry per extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    name = lambda req: canonical(re.split(r"[\[=<>~!; ]", req, maxsplit=1)[0])  # noqa: E731
    audiences = {"learner": {name(r) for r in project["dependencies"]}}
    for extra, reqs in project["optional-dependencies"].items():
        audiences[extra] = {name(r) for r in reqs}
    return audiences


def kitchen_imports() -> dict[str, bool]:
    """{top-level module: imported at some module's top level} for every third-party import in kitchen/."""
    found: dict[str, bool] = {}
    for path in (ROOT / "kitchen").rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for module in {n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"kitchen"}:
                found[module] = found.get(module, False) or id(node) in top
    return found


def distribution_of(module: str) -> str:
    dists = md.packages_distributions().get(module)
    assert dists, f"kitchen imports {module}, which no installed distribution provides"
    return canonical(dists[0])


def test_every_import_of_kitchen_is_declared_and_pinned():
    locked = pins(LOCK) | {d: v for f in DATA_FILES for d, v in pins(f).items()}
    data = {d for f in DATA_FILES for d in pins(f)}
    everyone = set().union(*declared().values()) | data
    problems = []
    for module in sorted(kitchen_imports()):
        dist = distribution_of(module)
        if dist not in everyone:
            problems.append(f"{module} ({dist}): not declared in pyproject.toml")
        if dist not in locked:
            problems.append(f"{module} ({dist}): not pinned in requirements.lock")
        elif md.version(dist).split("+")[0] != locked[dist]:
            problems.append(f"{module} ({dist}): {md.version(dist)} installed, {locked[dist]} pinned")
    assert not problems, "\n".join(problems)


def test_top_level_imports_come_with_the_learner_set():
    learner = declared()["learner"] | {d for f in DATA_FILES for d in pins(f)}
    extra_only = {m: distribution_of(m) for m, top in kitchen_imports().items() if top}
    outside = {m: d for m, d in extra_only.items() if d not in learner}
    assert not outside, f"imported at module level but not in the learner set (make lab): {outside}"


def test_every_declared_package_is_locked():
    locked = pins(LOCK)
    for audience, dists in declared().items():
        missing = sorted(dists - set(locked))
        assert not missing, f"{audience}: declared in pyproject.toml, missing from requirements.lock: {missing}"


def test_the_lock_pins_torch_to_the_cpu_release_and_every_line():
    lines = [l for l in LOCK.read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert all(PIN.match(l) for l in lines), [l for l in lines if not PIN.match(l)]
    assert pins(LOCK)["torch"] == "2.13.0"


def test_the_extras_named_by_the_error_are_pyprojects():
    assert set(EXTRAS) == set(declared()) - {"learner"}


def test_a_missing_extra_names_its_install():
    with pytest.raises(MissingExtra, match=r"`server` extra .*`make venv-all`"):
        need("kitchen_no_such_module", "server")
