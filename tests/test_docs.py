"""The README stays short, every link in it and in docs/ lands, and docs/speed.md keeps its markers.

No model: the benchmark's `--write` option is checked on its pure parts (`scripts/speed_doc.py`)
and on a page that lacks a marker, which must be refused before anything is measured.
"""

from __future__ import annotations

import doctest
import importlib.util
import math
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"
README = ROOT / "README.md"
SPEED = ROOT / "docs" / "speed.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
MAX_README_LINES = 200


def load(name: str):
    """A script of scripts/ as a module, with scripts/ on the path while it imports, as when it
    runs as a script (benchmark.py imports speed_doc from beside it: the module loaded here)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module


speed_doc = load("speed_doc")

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def links(page: Path) -> list[str]:
    """The link targets of a Markdown page, code blocks and code spans left out."""
    return LINK.findall(CODE.sub("", page.read_text(encoding="utf-8")))


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_the_readme_reads_in_two_minutes():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines: keep it to {MAX_README_LINES}, the rest in docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_lands(page):
    assert links(page), f"{page.name}: no links found (is the pattern still right?)"
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name} links to {target}, and {file.relative_to(ROOT)} does not exist"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file), f"{page.name} links to {target}: no such heading in {file.name}"


def test_the_anchor_rule_matches_github():
    page_anchors = anchors(ROOT / "docs" / "tests.md")
    assert {"the-claims-suite", "make-test", "scripts"} <= page_anchors


def test_the_speed_page_has_each_sections_markers_once():
    benchmark = load("benchmark")
    names = [benchmark.marker(section, tier) for section in benchmark.SECTIONS for tier in ("0.5b", "1.5b")]
    names += [speed_doc.LOAD_TEST]
    assert speed_doc.missing_markers(SPEED.read_text(encoding="utf-8"), names) == []
    assert set(benchmark.SECTIONS) == {"load", "decode", "families", "cache", "onednn", "batch", "server", "grammar"}


def test_every_speed_section_a_docstring_points_to_is_there():
    """Measured figures live in docs/speed.md, not in docstrings; a pointer names its section."""
    headings = {line[3:].strip() for line in SPEED.read_text().splitlines() if line.startswith("## ")}
    pointers = {(path.relative_to(ROOT).as_posix(), name)
                for path in (ROOT / "kitchen").rglob("*.py")
                for name in re.findall(r'docs/speed\.md(?:,| \() ?"([^"]+)"', path.read_text())}
    assert len(pointers) >= 4
    assert [(path, name) for path, name in sorted(pointers) if name not in headings] == []


def test_replace_section_changes_only_what_stands_between_its_markers():
    page = ("# Speed\n\nprose\n\n<!-- a -->\nold a\n<!-- /a -->\n\n"
            "more prose\n<!-- b -->\nold b\n<!-- /b -->\n")
    out = speed_doc.replace_section(page, "a", "\nnew a\nline two\n\n")
    assert out == page.replace("old a", "new a\nline two")
    assert speed_doc.replace_section(out, "a", "new a\nline two") == out  # again: the same page
    assert speed_doc.replace_section(out, "b", "x").endswith("more prose\n<!-- b -->\nx\n<!-- /b -->\n")


@pytest.mark.parametrize("page, why", [
    ("no markers here", "exactly once"),
    ("<!-- a -->\n<!-- /a -->\n<!-- a -->\n", "exactly once"),
    ("<!-- /a -->\nbody\n<!-- a -->\n", "comes before"),
])
def test_replace_section_refuses_a_page_without_one_clean_pair(page, why):
    with pytest.raises(ValueError, match=why):
        speed_doc.replace_section(page, "a", "body")


def test_a_written_section_names_the_machine_the_date_and_the_command(tmp_path):
    page = tmp_path / "speed.md"
    page.write_text("intro\n<!-- benchmark:decode -->\nnot measured yet\n<!-- /benchmark:decode -->\nend\n")
    speed_doc.write_section(page, "benchmark:decode", "\n## Decode\n\nsetting  tokens/s\n-------  --------\n",
                            "python scripts/benchmark.py --only decode --write docs/speed.md")
    text = page.read_text()
    assert text.startswith("intro\n<!-- benchmark:decode -->\nMeasured on ") and text.endswith("end\n")
    assert f"({os.cpu_count()} CPUs)" in text
    assert re.search(r", \d{4}-\d\d-\d\d \d\d:\d\d, with `python scripts/benchmark.py --only decode", text)
    table = "```text\n## Decode\n\nsetting  tokens/s\n-------  --------\n```"
    assert f"{table}\n<!-- /benchmark:decode -->" in text
    assert "not measured yet" not in text


def test_the_load_test_table_is_written_as_markdown():
    body = speed_doc.section_body("server: x\n| run | n |\n|---|---|\n| crowd | 30 |\nqueued.", "python c",
                                  "2026-12-05 10:00", fenced=False)
    assert body.endswith("with `python c`:\n\nserver: x\n\n| run | n |\n|---|---|\n| crowd | 30 |\n\nqueued.")


def test_the_load_tests_room_asks_thirty_different_questions_the_same_each_run():
    load_test = load("load_test")
    tasks = load_test.room_tasks(30)
    assert len({t.request for t in tasks}) == 30 and tasks == load_test.room_tasks(30)
    assert {t.request for t in load_test.room_tasks(25)} == {t.request for t in
                                                              load_test.load_tasks("single") + load_test.load_tasks("multi")}
    known = {t.request for t in load_test.load_tasks("single") + load_test.load_tasks("multi")}
    made = [t for t in tasks if t.request not in known]
    assert len(made) == 5
    for task in made:
        a, b = map(int, re.fullmatch(r"What is (\d+) × (\d+)\?", task.request).groups())
        assert task.expect["call"]["arguments"]["expression"] == f"{a} * {b}" and task.tools == ["calculator"]


def test_the_load_test_reports_a_rooms_slowdown_and_rate_per_server():
    load_test = load("load_test")
    alone = [load_test.Outcome(f"t{i}", 10.0, True, 2) for i in range(4)]
    room = [load_test.Outcome(f"t{i}", 10.0 * (i + 1), True, 2) for i in range(3)] + [
        load_test.Outcome("t3", 5.0, False, 0, "timeout")]
    ceiling = load_test.Ceiling(prefill_tps=60.0, decode_tps=20.0)
    run = load_test.ServerRun("llama-server", alone, 40.0, room, 30.0, 0, 1.4, 4, ceiling)
    assert run.slowdown(50) == 2.0 and run.slowdown(95) == 3.0  # the failed task is not timed
    rows = load_test.table([run])
    assert rows[2].startswith("| llama-server | 4 learners at once | 3 | 1 | 0 | 3 |") and rows[2].endswith("| 30 | 6.00 |")
    line = load_test.verdict(run)
    assert line.startswith("llama-server: batched: 4 different requests") and "1.00×" in line and "p95 3.0×" in line
    # what the cores allow: the pre-fill rate over one decode, against what the targets need
    assert "at most about 3.0× one request's tokens/s" in line and "need 2.0× at a batch of 4" in line
    assert "a room of 4 started together with p95 within 8× alone needs about 0.50×" in line
    # a learner still running at the deadline is neither failed nor left out: its time counts as beyond any
    late = load_test.ServerRun("llama-cpp-python", alone, 40.0, room[:2], 60.0, 2, 4.0, 4, ceiling)
    assert late.slowdown(50) == 2.0 and math.isinf(late.slowdown(95))
    row = load_test.table([late])[2]
    assert row.startswith("| llama-cpp-python | 4 learners at once | 2 | 0 | 2 | 2 |") and "| unfinished |" in row
    assert "p95 unfinished" in load_test.verdict(late)


def test_the_command_is_shown_from_the_repository_root():
    argv = [str(SCRIPTS / "benchmark.py"), "--only", "decode", "--write", "docs/speed.md"]
    command = speed_doc.command_line(argv, {"KITCHEN_DTYPE": "int8-decode", "HOME": "/root"})
    assert command == "KITCHEN_DTYPE=int8-decode python scripts/benchmark.py --only decode --write docs/speed.md"


def test_tee_prints_and_keeps_a_copy(capsys):
    with speed_doc.tee() as printed:
        print("a table")
    assert capsys.readouterr().out == "a table\n" and printed.getvalue() == "a table\n"


def test_the_benchmark_refuses_a_page_without_the_markers_before_measuring(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # main() sets it when missing; keep the test's env as it was
    page = tmp_path / "speed.md"
    page.write_text("<!-- benchmark:load -->\n<!-- /benchmark:load -->\n")
    benchmark = load("benchmark")
    with pytest.raises(SystemExit):
        benchmark.main(["--only", "decode", "--write", str(page)])
    assert "<!-- benchmark:decode:0.5b -->" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        benchmark.main(["--only", "decod"])
    assert "unknown section decod" in capsys.readouterr().err


def test_the_helpers_doctests_pass():
    result = doctest.testmod(speed_doc)
    assert result.attempted >= 5 and result.failed == 0
    result = doctest.testmod(load("load_test"))
    assert result.attempted >= 6 and result.failed == 0
