"""`make book`: the committed notebooks as a static site that reads offline.

In the browser phase: the build draws each diagram to SVG in Chromium."""

from __future__ import annotations

import html
import importlib.util
import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("build_book", ROOT / "scripts" / "build_book.py")
build_book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_book)


@pytest.fixture(scope="module")
def site(tmp_path_factory, browser, lab) -> Path:
    return build_book.build(tmp_path_factory.mktemp("book") / "book", browser, lab).parent


def outputs_with(path: Path, mime: str) -> int:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return sum(mime in o.get("data", {}) for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []))


def test_a_page_per_chapter_and_a_contents_page(site):
    pages = sorted(p.name for p in site.glob("*.html"))
    assert pages == sorted([p.stem + ".html" for p in build_book.chapters()] + ["glossary.html", "index.html"])
    index = (site / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{p.stem}.html"' in index for p in build_book.chapters())


def test_no_page_fetches_anything_from_the_network(site):
    for page in site.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'<(script|link|img|iframe)\b[^>]*(src|href)="https?://', text), page.name
        assert "cdnjs" not in text and "unpkg" not in text, page.name


def test_every_local_link_lands_on_a_page_and_an_anchor(site):
    ids = {p.name: {html.unescape(i) for i in re.findall(r'id="([^"]+)"', p.read_text(encoding="utf-8"))}
           for p in site.glob("*.html")}
    broken = []
    for page in site.glob("*.html"):
        for target, anchor in re.findall(r'href="([\w.-]+\.html)(?:#([^"]*))?"', page.read_text(encoding="utf-8")):
            if target not in ids or (anchor and html.unescape(anchor) not in ids[target]):
                broken.append(f"{page.name} -> {target}#{anchor}")
    assert not broken


@pytest.mark.parametrize("path", build_book.chapters(), ids=lambda p: p.stem)
def test_figures_are_kept_and_widgets_become_a_note(site, path):
    page = (site / f"{path.stem}.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64") >= outputs_with(path, "image/png")
    assert page.count("kitchen-book-note") == outputs_with(path, build_book.WIDGET)
    assert "Traceback (most recent call last)" not in page


def test_a_diagram_becomes_its_svg_image_and_a_widget_a_note():
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [nbformat.v4.new_output("display_data", data={build_book.MERMAID: "sequenceDiagram\n  A->>B: hi"}),
                    nbformat.v4.new_output("display_data", data={build_book.WIDGET: {"model_id": "x"}})]
    nb.cells.append(cell)
    nb.metadata["widgets"] = {"state": {}}
    build_book.prepare(nb, {"sequenceDiagram\n  A->>B: hi": "data:image/svg+xml,%3Csvg%3E"})
    first, second = (o["data"]["text/html"] for o in cell.outputs)
    assert first == '<img class="kitchen-diagram" alt="diagram" src="data:image/svg+xml,%3Csvg%3E">'
    assert "kitchen-book-note" in second and "widgets" not in nb.metadata
