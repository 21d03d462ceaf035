"""Compare two runs of the notebooks cell by cell: the same outputs, apart from timings?

    python scripts/compare_outputs.py OLD_DIR notebooks/

For each notebook in both folders, each code cell's outputs (text, HTML, images, errors) are
compared after masking what differs from run to run by nature: durations and speeds ("3.2 s",
"41 ms", "12.5 tokens/s") with the spaces that align them, progress bars, memory addresses and
widget ids. It prints each cell that still differs,
with the first differing lines, and a summary line per notebook; it exits with 1 if any differs.
A refactor that keeps behaviour passes this against a run made before it.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path

MASKS = [
    (re.compile(r".*\d+%\|.*"), "<progress bar>"),
    (re.compile(r" *\d[\d,.]*\s*(?:ms|s|sec|seconds|min|minutes|tokens/s|tok/s|it/s|s/it)\b"), " <time>"),
    (re.compile(r" *\d[\d,.]*\s*(?:GB|MB|GiB|MiB)\b"), " <memory>"),
    (re.compile(r"0x[0-9a-fA-F]+"), "0xADDRESS"),
    (re.compile(r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<id>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"), "<date>"),
]


def masked(text: str) -> str:
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def output_text(output: dict) -> str:
    """One output as comparable text (an image by its kind only: its bytes hold timings' bars too)."""
    if output["output_type"] == "stream":
        return "".join(output["text"])
    if output["output_type"] == "error":
        return f"{output['ename']}: {output['evalue']}"
    data = output.get("data", {})
    parts = []
    for kind in sorted(data):
        if kind.startswith("image/"):
            parts.append(f"[{kind}]")
        elif kind != "application/vnd.jupyter.widget-view+json":
            value = data[kind]
            parts.append(value if isinstance(value, str) else "".join(value) if isinstance(value, list)
                         else json.dumps(value, sort_keys=True))
    return "\n".join(parts)


def cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    return [masked("\n".join(output_text(o) for o in cell.get("outputs", [])))
            for cell in nb["cells"] if cell["cell_type"] == "code"]


def compare(old: Path, new: Path) -> int:
    a, b = cells(old), cells(new)
    if len(a) != len(b):
        print(f"{new.name}: {len(a)} code cells before, {len(b)} after")
        return 1
    differing = 0
    for index, (x, y) in enumerate(zip(a, b), start=1):
        if x != y:
            differing += 1
            diff = list(difflib.unified_diff(x.splitlines(), y.splitlines(), lineterm="", n=0))[2:8]
            print(f"{new.name} code cell {index}:\n    " + "\n    ".join(line[:160] for line in diff))
    print(f"{new.name}: {len(b)} code cells, {differing} differ beyond timings")
    return differing


def main(old_dir: str, new_dir: str) -> int:
    total = 0
    for new in sorted(Path(new_dir).glob("*.ipynb")):
        old = Path(old_dir) / new.name
        if old.exists():
            total += compare(old, new)
        else:
            print(f"{new.name}: not in {old_dir}")
            total += 1
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
