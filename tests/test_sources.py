"""Every chapter ends with the sources its ideas come from, each with a year and a link."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CHAPTERS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("0*.ipynb"))
YEAR = re.compile(r"\((19|20)\d\d\)")
URL = re.compile(r"https://\S+")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_the_chapter_ends_with_its_sources(path):
    last = json.loads(path.read_text(encoding="utf-8"))["cells"][-1]
    text = "".join(last["source"])
    assert last["cell_type"] == "markdown" and text.startswith("## Sources")
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(items) >= 3
    assert not [item for item in items if not (YEAR.search(item) and URL.search(item))]
