"""The "Your turn" cells of a chapter's notebook, as shipped and as solved.

Each exercise is a code cell followed by a folded solution (a markdown `<details>` block holding
Python). Run in order in one namespace, as a learner would: the shipped cell must end with its
check saying "not done", and the solution, run after it, with the same check saying "right". The
names a solution takes from the chapter (`model`, `tok`, `wire`) are stand-ins here: a scripted
model with the real tokenizer and chat template, and a wire log of a real MCP session.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from kitchen.chapters.arithmetic import check_work
from kitchen.exercises import Feedback
from kitchen.mcp import WireLog
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SOLUTION = re.compile(r"<details><summary>Solution.*?```python\n(.*?)\n```", re.DOTALL)
# A reply to chapter 01's "your own product" (4321 × 8765) whose second row is wrong.
PAPER = "  4321\nx 8765\n------\n 21605\n259261\n3024700\n34568000\n------\n37873566"


def notebook(chapter: str) -> Path:
    """The chapter's notebook (`notebooks/03_….ipynb` for "03")."""
    found = sorted(NOTEBOOKS.glob(f"{chapter}_*.ipynb"))
    assert len(found) == 1, f"chapter {chapter}: notebooks {found}"
    return found[0]


def exercises(path: Path) -> list[tuple[str, str]]:
    """(exercise cell's code, its solution's code) for each exercise of a chapter, in order."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    pairs = []
    for before, cell in zip(cells, cells[1:]):
        found = SOLUTION.search("".join(cell["source"])) if cell["cell_type"] == "markdown" else None
        if found:
            assert before["cell_type"] == "code", f"{path.stem}: a solution follows a markdown cell"
            pairs.append(("".join(before["source"]), found.group(1)))
    return pairs


def run(code: str, namespace: dict):
    """Run `code` as a cell does; the value of its last line if that is an expression."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, "<cell>", "exec"), namespace)
    return eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace) if last else None


def stand_ins(chapter: str) -> dict:
    if chapter == "01":
        model = ScriptedModel([PAPER])
        return {"model": model, "tok": model.tok, "check_work": check_work}
    if chapter == "02":
        return {"model": ScriptedModel([]), "calculator": calculator}
    if chapter == "05":
        return {"wire": WireLog()}
    if chapter == "07":
        return {"model": ScriptedModel([])}
    return {}


def check_ships_not_done_and_solved(chapter: str) -> None:
    """Assert that each exercise of the chapter ships "not done" and that its solution is right."""
    pairs = exercises(notebook(chapter))
    assert 2 <= len(pairs) <= 4, f"chapter {chapter} has {len(pairs)} exercises"
    namespace = stand_ins(chapter)
    for shipped, solution in pairs:
        before = run(shipped, namespace)
        assert isinstance(before, Feedback) and before.status == "not done", (shipped, before)
        after = run(solution, namespace)
        assert isinstance(after, Feedback) and after.right, (solution, after)
