"""Build the series as a static HTML site from the committed outputs: `make book`.

    python scripts/build_book.py            # writes build/book/index.html and one page per chapter

Nothing runs: each chapter page is its notebook as committed (text, code, outputs, figures),
exported with nbconvert's JupyterLab template. The site reads offline, with no script fetched
from the network when a page opens:

- the template's remote scripts (require.js, MathJax, the widget embedder, Mermaid) are left out;
- a widget, which needs a running kernel, shows a note saying so;
- Mermaid diagrams are drawn to SVG at build time, by JupyterLab's own Mermaid renderer in the
  headless Chromium of the browser suite (a private JupyterLab on 127.0.0.1, no network).

Links between chapters and to the glossary point to the built pages.
"""

from __future__ import annotations

import html
import re
import shutil
import sys
import tempfile
import urllib.parse
import uuid
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from kitchen.settings import current

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
OUT = ROOT / "build" / "book"
WIDGET = "application/vnd.jupyter.widget-view+json"
MERMAID = "text/vnd.mermaid"
SVG_URI = "data:image/svg+xml,"
CHROMIUM = str(current().chromium)  # Debian's unless KITCHEN_CHROMIUM says, as in the browser suite
# Every diagram's output is either drawn (an image) or JupyterLab's note that it could not be.
DRAWN = ("n => { const all = [...document.querySelectorAll('.jp-RenderedMermaid')];"
         " return all.length >= n && all.every(el => el.querySelector('img, .jp-RenderedMermaid-Details')); }")
WIDGET_NOTE = ('<div class="kitchen-book-note" style="border:1px dashed #999;border-radius:6px;padding:6px;'
               'color:#555">An interactive widget is here: it needs a running kernel. Open this notebook in '
               'JupyterLab (<code>make lab</code>) to use it.</div>')
REMOTE_SCRIPT = re.compile(r"<script\b[^>]*>(?:(?!</script>).)*?</script>", re.S)
LOCAL_LINK = re.compile(r'href="(?:\./)?([\w.-]+)\.(ipynb|md)(#[^"]*)?"')
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5}}
code{{background:#f3f3f3;padding:0 .2em}} li{{margin:.2em 0}}</style></head>
<body>{body}</body></html>
"""


def chapters() -> list[Path]:
    return sorted(NOTEBOOKS.glob("0*.ipynb"))


def title_of(nb) -> str:
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    return first.source.splitlines()[0].lstrip("# ").strip()


def headings(nb) -> list[str]:
    return [line.lstrip("# ").strip() for c in nb.cells if c.cell_type == "markdown"
            for line in c.source.splitlines() if line.startswith("## ")]


def anchor(heading: str) -> str:
    """The id a heading gets (as in JupyterLab): its text, spaces made dashes."""
    return re.sub(r"[`*]", "", heading).replace(" ", "-")


def mermaid_outputs(nb) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if MERMAID in o.get("data", {})]


def render_mermaid(sources: list[str], context=None, server=None) -> list[str]:
    """Each Mermaid source drawn as an SVG image (a data URI) by JupyterLab's renderer in headless
    Chromium. The browser suite passes its own Playwright `context` and JupyterLab `server`;
    otherwise both are started here, and stopped after."""
    nb = nbformat.v4.new_notebook()
    for source in sources:
        cell = nbformat.v4.new_code_cell("")
        cell.outputs = [nbformat.v4.new_output("display_data", data={MERMAID: source, "text/plain": source})]
        nb.cells.append(cell)
    name = f"diagrams-{uuid.uuid4().hex[:8]}.ipynb"
    with tempfile.TemporaryDirectory() as tmp:
        if server is None:
            sys.path.insert(0, str(ROOT / "tests" / "browser"))
            from lab_server import start_lab  # the browser suite's private JupyterLab

            folder = Path(tmp) / "diagrams"
            folder.mkdir()
            nbformat.write(nb, folder / name)
            own = start_lab(folder, Path(tmp) / "lab")
            try:
                return render_mermaid(sources, context, own)
            finally:
                own.stop()
        nbformat.write(nb, Path(server.root) / name)
        if context is not None:
            return _draw(context, server, name, len(sources))
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            try:
                return _draw(browser.new_context(), server, name, len(sources))
            finally:
                browser.close()


def _draw(context, server, name: str, count: int) -> list[str]:
    """The diagrams of notebook `name`, as JupyterLab draws them: SVG images (data URIs)."""
    page = context.new_page()
    try:
        page.goto(f"{server.url}/lab/tree/{name}?token={server.token}")
        page.wait_for_function(DRAWN, arg=count, timeout=60_000)
        drawn = page.evaluate("[...document.querySelectorAll('.jp-RenderedMermaid')]"
                              ".map(el => el.querySelector('img') ? el.querySelector('img').src : el.innerText)")
    finally:
        page.close()
    failed = {i: uri[:200] for i, uri in enumerate(drawn) if not uri.startswith(SVG_URI) or "Syntax error" in svg_text(uri)}
    if failed:
        raise ValueError(f"Mermaid could not draw diagram(s): {failed}")
    return drawn


def svg_text(uri: str) -> str:
    """The SVG inside a data URI."""
    return urllib.parse.unquote(uri.split(",", 1)[-1])


def prepare(nb, svgs: dict[str, str]) -> None:
    """Widgets become a note; Mermaid outputs become their SVG; widget state is dropped."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for i, output in enumerate(cell.get("outputs", [])):
            data = output.get("data", {})
            if WIDGET in data:
                cell.outputs[i] = nbformat.v4.new_output("display_data", data={"text/html": WIDGET_NOTE})
            elif MERMAID in data:
                image = f'<img class="kitchen-diagram" alt="diagram" src="{html.escape(svgs[data[MERMAID]])}">'
                cell.outputs[i] = nbformat.v4.new_output("display_data", data={"text/html": image})
    nb.metadata.pop("widgets", None)


def offline(page: str) -> str:
    """The page without any script that would fetch from the network, its local links pointing
    to the built pages."""
    page = REMOTE_SCRIPT.sub(lambda m: "" if re.search(r"https?://", m.group(0)) else m.group(0), page)
    return LOCAL_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(3) or ""}"', page)


def contents(books: list[tuple[Path, str, list[str]]]) -> str:
    items = []
    for path, title, sections in books:
        links = "".join(f'<li><a href="{path.stem}.html#{html.escape(anchor(s))}">{html.escape(s)}</a></li>'
                        for s in sections)
        items.append(f'<li><a href="{path.stem}.html"><b>{html.escape(title)}</b></a><ul>{links}</ul></li>')
    body = ("<h1>LLM Kitchen · Tools</h1><p>How LLM tool calling really works, run on a small model on a CPU. "
            "These pages are the notebooks as committed, outputs included; widgets need a running kernel "
            "(<code>make lab</code>).</p><h2>Contents</h2><ol class=\"kitchen-contents\">" + "".join(items) +
            '</ol><p><a href="glossary.html">Glossary</a></p>')
    return PAGE.format(title="LLM Kitchen · Tools", body=body)


def build(out: Path = OUT, context=None, server=None) -> Path:
    """Write the site into `out` (emptied first); return the contents page. `context` and
    `server`: see `render_mermaid`."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    notebooks = [(path, nbformat.read(path, as_version=4)) for path in chapters()]
    sources = list(dict.fromkeys(o["data"][MERMAID] for _, nb in notebooks for o in mermaid_outputs(nb)))
    svgs = dict(zip(sources, render_mermaid(sources, context, server))) if sources else {}
    exporter = HTMLExporter(template_name="lab")
    books = []
    for path, nb in notebooks:
        books.append((path, title_of(nb), headings(nb)))
        prepare(nb, svgs)
        page, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title_of(nb)}})
        (out / f"{path.stem}.html").write_text(offline(page), encoding="utf-8")
    glossary = markdown2html_mistune((NOTEBOOKS / "glossary.md").read_text(encoding="utf-8"))
    (out / "glossary.html").write_text(offline(PAGE.format(title="Glossary", body=glossary)), encoding="utf-8")
    index = out / "index.html"
    index.write_text(contents(books), encoding="utf-8")
    print(f"{len(books)} chapters, {len(sources)} diagrams drawn -> {index}")
    return index


if __name__ == "__main__":
    build()
