"""The glossary covers the series' terms, and each link lands on a section that uses the term."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
# The heading ids come from the book builder's `anchor`, the one rule for them.
spec = importlib.util.spec_from_file_location("build_book", ROOT / "scripts" / "build_book.py")
build_book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_book)
GLOSSARY = NOTEBOOKS / "glossary.md"
REQUIRED = ["harness", "tool schema", "chat template", "pre-fill", "kv cache", "stop string", "protocol",
            "mcp host, client and server", "injected parameter", "grammar-constrained decoding"]
ENTRY = re.compile(r"^- \*\*(?P<term>[^*]+)\*\*: (?P<body>.*?)(?=^- \*\*|\Z)", re.M | re.S)
LINK = re.compile(r"\[[^\]]+\]\((?P<file>[^)#]+\.ipynb)#(?P<anchor>[^)]+)\)")
SMALL = {"and", "the", "of", "a"}


def entries() -> dict[str, str]:
    return {m["term"].strip("`").lower(): m["body"] for m in ENTRY.finditer(GLOSSARY.read_text(encoding="utf-8"))}


def sections(path: Path) -> dict[str, str]:
    """Each heading's anchor, with the text (markdown and code) up to the next heading."""
    out: dict[str, str] = {}
    current = None
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "markdown" and line.startswith("#"):
                current = build_book.anchor(line.lstrip("#").strip())
                out[current] = line + "\n"
            elif current:
                out[current] += line + "\n"
    return out


def test_every_required_term_is_there():
    assert not [t for t in REQUIRED if t not in entries()]


@pytest.mark.parametrize("term", sorted(entries()))
def test_each_link_lands_on_a_section_that_uses_the_term(term):
    links = list(LINK.finditer(entries()[term]))
    assert links, f"{term}: no link to a chapter"
    for link in links:
        path = NOTEBOOKS / link["file"]
        assert path.exists(), f"{term}: {link['file']} does not exist"
        found = sections(path)
        assert link["anchor"] in found, f"{term}: no heading with the anchor {link['anchor']} in {link['file']}"
        words = [w for w in re.split(r"[\s,]+", term.replace("`", "")) if w not in SMALL]
        text = found[link["anchor"]].lower()
        missing = [w for w in words if w.replace("-", " ") not in text.replace("-", " ")]
        assert not missing, f"{term}: the section {link['anchor']} never says {missing}"
