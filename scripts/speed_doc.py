"""Measured tables written into docs/speed.md, each between its own pair of markers.

    <!-- benchmark:decode -->
    ...what `python scripts/benchmark.py --only decode --write docs/speed.md` printed...
    <!-- /benchmark:decode -->

`scripts/benchmark.py` and `scripts/load_test.py` use it for their `--write FILE` option: a
section's printed output is copied (`tee`) and written between that section's markers, under a
line naming the machine, the date and the command. Everything outside the markers (the page's
prose) is left as it is. It imports nothing from `kitchen` and runs no model.
"""

from __future__ import annotations

import io
import os
import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

from kitchen.model.engines.cpu import cpu_model, family
from kitchen.settings import ISA_LIMIT_VARS

ROOT = Path(__file__).resolve().parent.parent
LOAD_TEST = "load_test"  # load_test.py's marker name; benchmark.py's are "benchmark:<section>"
# Environment variables that change what a run measures, repeated in the recorded command.
COMMAND_ENV = ("KITCHEN_DTYPE", "KITCHEN_MODEL", "OMP_NUM_THREADS", *ISA_LIMIT_VARS)


def markers(name: str) -> tuple[str, str]:
    """The opening and closing marker of a section.

    >>> markers("benchmark:decode")
    ('<!-- benchmark:decode -->', '<!-- /benchmark:decode -->')
    """
    return f"<!-- {name} -->", f"<!-- /{name} -->"


def replace_section(text: str, name: str, body: str) -> str:
    """`text` with what stands between the markers of `name` replaced by `body`, and nothing else
    changed. Each marker must appear exactly once, the opening one first, or it raises ValueError.

    >>> replace_section("a\\n<!-- x -->\\nold\\n<!-- /x -->\\nb\\n", "x", "new")
    'a\\n<!-- x -->\\nnew\\n<!-- /x -->\\nb\\n'
    """
    opening, closing = markers(name)
    for marker in (opening, closing):
        if text.count(marker) != 1:
            raise ValueError(f"{marker} must appear exactly once; found {text.count(marker)}")
    start, end = text.index(opening) + len(opening), text.index(closing)
    if end < start:
        raise ValueError(f"{closing} comes before {opening}")
    return f"{text[:start]}\n{body.strip(chr(10))}\n{text[end:]}"


def missing_markers(text: str, names: list[str]) -> list[str]:
    """The markers of `names` that `text` lacks (or holds more than once), so a long run can be
    refused before it starts rather than fail at the end.

    >>> missing_markers("<!-- a -->\\n<!-- /a -->", ["a", "b"])
    ['<!-- b -->', '<!-- /b -->']
    """
    return [m for name in names for m in markers(name) if text.count(m) != 1]


def command_line(argv: list[str] | None = None, env: dict[str, str] | None = None) -> str:
    """The command that made a run, as one would type it from the repository's root.

    >>> command_line(["/repo/scripts/benchmark.py", "--only", "decode"], {"KITCHEN_DTYPE": "float32"})
    'KITCHEN_DTYPE=float32 python scripts/benchmark.py --only decode'
    """
    argv = sys.argv if argv is None else argv
    env = os.environ if env is None else env
    script = Path(argv[0])
    shown = f"scripts/{script.name}" if script.suffix == ".py" else str(script)
    prefix = [f"{k}={shlex.quote(env[k])}" for k in COMMAND_ENV if env.get(k)]
    return " ".join([*prefix, "python", shown, *map(shlex.quote, argv[1:])])


def machine_line(command: str, when: str | None = None) -> str:
    """The line above a section's table: machine, date, command."""
    when = when or time.strftime("%Y-%m-%d %H:%M")
    return (f"Measured on {cpu_model()} ({os.cpu_count()} CPUs), the {family()} family, {when}, "
            f"with `{command}`:")


def as_markdown(output: str) -> str:
    """Printed lines as Markdown: a run of table rows (`| ... |`) stays one block, every other line
    becomes a paragraph of its own.

    >>> as_markdown("alone: 5 tasks\\n| a | b |\\n|---|---|\\n| 1 | 2 |\\nqueued.")
    'alone: 5 tasks\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\nqueued.'
    """
    blocks: list[list[str]] = []
    for line in output.strip("\n").splitlines():
        if not line.strip():
            continue
        if line.startswith("|") and blocks and blocks[-1][-1].startswith("|"):
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return "\n\n".join("\n".join(block) for block in blocks)


def section_body(output: str, command: str, when: str | None = None, fenced: bool = True) -> str:
    """A section as written into the page: the machine line, then the printed output, verbatim in
    a code block (`fenced`) or read as Markdown (a table printed as Markdown rows)."""
    shown = f"```text\n{output.strip(chr(10))}\n```" if fenced else as_markdown(output)
    return f"{machine_line(command, when)}\n\n{shown}"


def write_section(path: Path, name: str, output: str, command: str | None = None,
                  fenced: bool = True) -> None:
    """Write one section's printed output between its markers in the file at `path`."""
    path = Path(path)
    body = section_body(output, command or command_line(), fenced=fenced)
    path.write_text(replace_section(path.read_text(encoding="utf-8"), name, body), encoding="utf-8")


def check_markers(path: Path, names: list[str]) -> str | None:
    """Why `--write path` cannot record `names` (no such file, a marker missing), or None."""
    path = Path(path)
    if not path.is_file():
        return f"{path} does not exist"
    missing = missing_markers(path.read_text(encoding="utf-8"), names)
    return f"{path} lacks (or repeats) the markers {', '.join(missing)}" if missing else None


class _Tee(io.TextIOBase):
    def __init__(self, out, copy: io.StringIO) -> None:
        self.out, self.copy = out, copy

    def write(self, text: str) -> int:
        self.out.write(text)
        self.copy.write(text)
        return len(text)

    def flush(self) -> None:
        self.out.flush()


@contextmanager
def tee() -> Iterator[io.StringIO]:
    """Print as usual, and keep a copy of everything printed inside the block."""
    copy = io.StringIO()
    with redirect_stdout(_Tee(sys.stdout, copy)):
        yield copy
