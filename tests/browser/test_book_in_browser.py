"""The diagrams and the book in Chromium: each Mermaid diagram the series draws becomes an SVG in
JupyterLab, and the built site reads with the network cut off."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import pytest

from kitchen.views.diagrams import loop_diagram, session_diagram
from kitchen.harness.loop import run_harness
from kitchen.mcp import MCPToolbox, WireLog
from kitchen.model.scripted import ScriptedModel
from kitchen.tools import calculator

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"
spec = importlib.util.spec_from_file_location("build_book", ROOT / "scripts" / "build_book.py")
build_book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_book)
CALL = '<tool_call>\n{"name": "calculator", "arguments": {"expression": "12 * 34"}}\n</tool_call>'


def test_the_diagrams_render_as_svg(browser, lab):
    trace = run_harness(ScriptedModel([CALL, '<tool_call>\n{"name": "calc", "arguments": {}}\n</tool_call>',
                                       "It is 408."]), "What is 12 × 34?", [calculator])
    wire = WireLog()
    with MCPToolbox(context={"user_id": "ada"}, wire=wire) as box:
        box.call("calculator", {"expression": "12 * 34"})
        box.call_as_application("enable_weather")
    drawn = build_book.render_mermaid([str(loop_diagram(trace)), str(session_diagram(wire))], browser, lab)
    loop, session = (build_book.svg_text(uri) for uri in drawn)
    assert "<svg" in loop and "step 1" in loop and "error (unknown_tool)" in loop
    assert "<svg" in session and "notifications/tools/list_changed" in session
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    images = "".join(f'<p><img src="{uri}"></p>' for uri in drawn)
    (ARTIFACTS / "diagrams.html").write_text(f"<html><body>{images}</body></html>", encoding="utf-8")


def test_the_book_reads_offline(browser, lab):
    site = build_book.build(Path(tempfile.mkdtemp(prefix="kitchen-book-")) / "book", browser, lab).parent
    page = browser.new_page()
    fetched: list[str] = []

    def cut_off(route):
        fetched.append(route.request.url)
        route.abort()

    page.route("http*://**", cut_off)
    try:
        page.goto((site / "index.html").as_uri())
        chapters = page.locator(".kitchen-contents > li > a")
        assert chapters.count() == len(build_book.chapters())
        problems = []
        for i in range(chapters.count()):
            page.goto((site / "index.html").as_uri())
            name = chapters.nth(i).inner_text()
            chapters.nth(i).click()
            page.wait_for_load_state("load")
            images = page.evaluate("[...document.images].map(img => img.complete && img.naturalWidth > 0)")
            if not all(images):
                problems.append(f"{name}: {images.count(False)} of {len(images)} images not shown")
            text = page.inner_text("body")
            if "Traceback" in text or "Error displaying widget" in text:
                problems.append(f"{name}: error text on the page")
        assert not problems and not fetched, (problems, fetched[:5])
    finally:
        page.close()


def test_a_diagram_mermaid_cannot_draw_is_an_error(browser, lab):
    with pytest.raises(ValueError, match="could not draw"):
        build_book.render_mermaid(["sequenceDiagram\n    A->>: nobody to send to"], browser, lab)
