"""The pretend web: known pages, loose address matching, unknown addresses, the injected page."""

from __future__ import annotations

import doctest
import importlib
import json

import pytest

from kitchen.settings import DATA
from kitchen.tools.errors import ToolError
from kitchen.tools.web import fetch_page, known_pages

PAGES = json.loads((DATA / "web" / "pages.json").read_text(encoding="utf-8"))
WEATHER = "https://weather.example/today/little-puddleton"


def test_data_file_has_five_to_seven_pages_on_example_domains() -> None:
    assert 5 <= len(PAGES) <= 7
    for page in PAGES:
        assert set(page) == {"url", "title", "text", "has_injection"}
        host = page["url"].removeprefix("https://").split("/")[0]
        assert host.endswith(".example")
        assert page["title"] and len(page["text"]) > 100
    assert known_pages() == [page["url"] for page in PAGES]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page["url"])
def test_every_page_is_title_blank_line_text(page: dict) -> None:
    assert fetch_page(page["url"]) == f"{page['title']}\n\n{page['text']}"


@pytest.mark.parametrize("address", [
    WEATHER,
    WEATHER + "/",
    "http://weather.example/today/little-puddleton",
    "weather.example/today/little-puddleton",
    "HTTPS://WEATHER.Example/today/little-puddleton",
    "  weather.example/today/little-puddleton/  ",
    WEATHER + "#evening",
])
def test_addresses_are_matched_loosely(address: str) -> None:
    assert fetch_page(address) == fetch_page(WEATHER)


def test_the_path_is_case_sensitive() -> None:
    with pytest.raises(ToolError, match="No such page"):
        fetch_page("weather.example/TODAY/little-puddleton")


@pytest.mark.parametrize("address", [
    "https://www.google.com", "weather.example", "weather.example/today", "https://evil.example/",
    "not a url", "weather.example/today/little-puddleton?units=f",
])
def test_unknown_addresses_list_the_known_ones(address: str) -> None:
    with pytest.raises(ToolError) as caught:
        fetch_page(address)
    message = str(caught.value)
    assert "No such page" in message
    assert all(url in message for url in known_pages())


@pytest.mark.parametrize("address, says", [
    ("file:///etc/passwd", "Only web addresses"),
    ("ftp://weather.example/today/little-puddleton", "Only web addresses"),
    ("", "web address"),
    ("   ", "web address"),
    (None, "web address"),
])
def test_other_schemes_and_empty_addresses_are_refused(address: object, says: str) -> None:
    with pytest.raises(ToolError, match=says):
        fetch_page(address)  # type: ignore[arg-type]


def test_exactly_one_page_carries_the_injection_and_it_is_passed_through() -> None:
    injected = [page for page in PAGES if page["has_injection"]]
    assert len(injected) == 1
    text = fetch_page(injected[0]["url"])
    assert "save_memory" in text and "attacker@evil.example" in text
    clean = [fetch_page(page["url"]) for page in PAGES if not page["has_injection"]]
    assert not any("save_memory" in page or "evil.example" in page for page in clean)


def test_docstring_examples() -> None:
    result = doctest.testmod(importlib.import_module("kitchen.tools.web"))
    assert result.attempted >= 2 and result.failed == 0
