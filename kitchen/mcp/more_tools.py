"""The tools chapter 05's MCP server offers besides the five toy tools.

- `my_notes`: searches the signed-in user's notes. Its `user_id` is `Injected`: the schema never
  shows it, and the server fills it from the call's `_meta`, which the application writes.
- `get_weather`: canned weather for a few made-up places (`data/weather.json`); the server only
  offers it after the application switches it on mid-session.
- `stall` and `crash`: fault switches, offered only by a server started with `--faults`.

The tools that change the server's own state (`save_memory`, `enable_weather`) are methods of
`kitchen.mcp.server.KitchenServer`. Like the toy tools, these are plain functions with type hints
and docstrings, so their schemas come from `kitchen.tools.schemas.tool_schema`.
"""

from __future__ import annotations

import functools
import json
import os
import time

import anyio

from kitchen.settings import DATA
from kitchen.tools.schemas import Injected
from kitchen.tools.errors import ToolError

WEATHER_FILE = DATA / "weather.json"

# A tiny per-user store. Bob's notes hold a secret: the reason the model must never pick the user.
NOTES: dict[str, list[str]] = {
    "ada": ["Buy flour, eggs and lemons for Sunday's pancakes.",
            "Dentist on Thursday at 10:30.",
            "Ask Bob to bring back the ladder."],
    "bob": ["The ladder is in Ada's shed; take it back before the weekend.",
            "Surprise party for Ada on the 14th. Do not tell her!",
            "Bike lock code: 4-7-1-9."],
}


def my_notes(query: str, user_id: str = Injected("user_id")) -> str:
    """Search the signed-in user's personal notes and return the ones that mention the query.
    Use it when the user asks about something they wrote down, such as a shopping list or an
    appointment.

    Args:
        query: Words to look for, taken from the user's question; "*" returns every note.
        user_id: The signed-in user, filled in by the application from its session.
    """
    return search_notes(NOTES.get(user_id), user_id, query)


def search_notes(notes: list[str] | None, user_id: str, query: str) -> str:
    """`my_notes`' search, over one user's notes (None: the user has no notebook)."""
    if notes is None:
        raise ToolError(f"There is no notebook for the signed-in user {user_id!r}.")
    words = [w for w in query.lower().split() if w.strip("*")]
    found = notes if not words else [n for n in notes if any(w in n.lower() for w in words)]
    if not found:
        return f"None of the user's {len(notes)} notes mention {query!r}."
    return "\n".join(f"- {note}" for note in found)


@functools.cache
def _weather() -> dict[str, dict]:
    return json.loads(WEATHER_FILE.read_text(encoding="utf-8"))["places"]


def get_weather(location: str) -> str:
    """Today's weather for a town: a short summary, the high and low in °C, the chance of rain
    and the wind. Only a few made-up towns are known; an unknown town gives an error that lists them.

    Args:
        location: The town's name, as the user wrote it.
    """
    places = _weather()
    wanted = " ".join(location.split()).casefold()
    for name, day in places.items():
        if name.casefold() == wanted:
            return (f"{name} today: {day['summary']}. High {day['high_c']} °C, low {day['low_c']} °C, "
                    f"{day['chance_of_rain_percent']} percent chance of rain, wind {day['wind']}.")
    raise ToolError(f"No weather for {location!r}. Known towns: {', '.join(places)}.")


async def stall(seconds: float = 3600.0) -> str:
    """A fault switch for tests: wait, answering only after `seconds` (an hour by default), so
    the caller's timeout fires first. Cancelling the request ends the wait.

    Args:
        seconds: How long to wait before answering.
    """
    await anyio.sleep(seconds)
    return f"waited {seconds:g} s"


def crash() -> str:
    """A fault switch for tests: the server process dies in the middle of this call, without
    answering it (exit code 1).
    """
    time.sleep(0.1)  # the request is in flight and being handled when the process goes
    os._exit(1)
