"""A pretend web: a page fetcher over a handful of made-up pages on `.example` sites.

What it does: looks an address up in `data/web/pages.json` and returns the page's title and text.
Addresses are matched loosely: the http:// or https:// prefix is optional, the host name ignores
case, and a trailing slash or a #fragment makes no difference. One page (marked
`"has_injection": true` in the data) hides a prompt injection in otherwise ordinary text, for the
chapter on security.

What it deliberately does not do: it never touches the network, and it does not defend against
that injection. Passing page text through unchanged is the point: whatever a page says is data
from a stranger, and it is up to the harness, not the fetcher, to keep it from acting as orders.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from kitchen.settings import DATA
from kitchen.tools.errors import ToolError

PAGES_FILE = DATA / "web" / "pages.json"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def normalise_url(url: str) -> str:
    """The lookup key of an address: no scheme, lower-case host, no trailing slash, no #fragment.

    >>> normalise_url("HTTPS://Weather.Example/today/little-puddleton/")
    'weather.example/today/little-puddleton'
    """
    address = url.strip().split("#", 1)[0]
    if match := _SCHEME.match(address):
        if match.group(1).lower() not in ("http", "https"):
            raise ToolError(f"Only web addresses (http or https) can be fetched, not {match.group(1)}:// "
                            f"addresses. The pages that exist are: {', '.join(known_pages())}.")
        address = address[match.end():]
    host, _, path = address.partition("/")
    path = path.rstrip("/")
    return host.lower() + ("/" + path if path else "")


@functools.cache
def _pages() -> dict[str, dict[str, Any]]:
    pages = json.loads(PAGES_FILE.read_text(encoding="utf-8"))
    return {normalise_url(page["url"]): page for page in pages}


def known_pages() -> list[str]:
    """The address of every page on the pretend web."""
    return [page["url"] for page in _pages().values()]


def fetch_page(url: str) -> str:
    """Fetch a web page and return its title and text. Use it when the user gives a web address or asks
    what a page says. This is a small pretend web for a tutorial: only a few pages on made-up .example
    sites exist, and asking for any other address gives an error that lists the ones that do.

    Args:
        url: The page's full address, exactly as the user gave it; the https:// part is
            optional.

    Returns:
        The page's title, a blank line, then its text.

    Raises:
        ToolError: If no page has this address.

    Example:
        >>> fetch_page("weather.example/today/little-puddleton").splitlines()[0]
        "Today's weather in Little Puddleton"
    """
    if not isinstance(url, str) or not url.strip():
        raise ToolError(f"Give a web address as text. The pages that exist are: {', '.join(known_pages())}.")
    page = _pages().get(normalise_url(url))
    if page is None:
        raise ToolError(f"No such page: nothing exists at {url!r} on this pretend web. "
                        f"The pages that exist are: {', '.join(known_pages())}.")
    return f"{page['title']}\n\n{page['text']}"
