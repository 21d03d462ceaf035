"""Chapter 05's server for a room: streamable HTTP with a bearer token per learner.

A real server process on a free local port, with a room file of three learners. No token or a
forged one gets 401 before any MCP handling; with a token, the user id is the token's learner
whatever the client asserts in `_meta` or the model writes as an argument; each learner's notes
are theirs alone.
"""

from __future__ import annotations

import json

import httpx
import pytest

from kitchen.mcp import PROTOCOL_VERSION, MCPConnectionError, MCPToolbox
from kitchen.mcp.login import RoomTokens, room_server

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                         "clientInfo": {"name": "test", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def room():
    """(url, tokens) of a running server whose room is ada, bob and learner01."""
    with room_server(["ada", "bob", "learner01"]) as (url, tokens):
        yield url, tokens


def post(url: str, token: str | None) -> httpx.Response:
    headers = {**HEADERS, **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx.post(url, content=json.dumps(INITIALIZE), headers=headers, timeout=10)


def test_the_room_file_is_the_owners_alone(tmp_path):
    path = RoomTokens.generate(["ada"]).save(tmp_path / "room.json")
    assert path.stat().st_mode & 0o777 == 0o600
    assert list(RoomTokens.load(path).tokens) == ["ada"]


def test_no_token_or_a_forged_one_gets_401(room):
    url, tokens = room
    for token in (None, "forged", tokens["ada"] + "x"):
        answer = post(url, token)
        assert answer.status_code == 401, (token, answer.status_code, answer.text[:200])
        assert answer.headers["www-authenticate"].startswith("Bearer")
    assert post(url, tokens["ada"]).status_code == 200


def test_a_toolbox_without_a_token_is_a_clear_error(room):
    url, _ = room
    with pytest.raises(MCPConnectionError, match="could not connect"):
        MCPToolbox(url=url, connect_timeout=10)


def test_the_user_is_the_tokens_learner_whatever_the_client_asserts(room):
    url, tokens = room
    # The client program claims to be bob in _meta; the token is ada's.
    with MCPToolbox(url=url, token=tokens["ada"], context={"user_id": "bob"}, timeout=5) as box:
        notes = box.call("my_notes", {"query": "*"}).content
        assert "Dentist on Thursday" in notes and "Surprise party" not in notes
        written = box.call("my_notes", {"query": "*", "user_id": "bob"})  # the model writes the user
        assert not written.ok and written.error_kind == "injected_argument" and "Surprise" not in written.content
    with MCPToolbox(url=url, token=tokens["ada"], context={"user_id": "bob"}, injected_policy="ignore",
                    timeout=5) as box:
        dropped = box.call("my_notes", {"query": "party", "user_id": "bob"})
        assert dropped.ok and "Surprise" not in dropped.content  # the argument is dropped; ada has no party note


def test_each_learners_notes_are_theirs_alone(room):
    url, tokens = room
    with MCPToolbox(url=url, token=tokens["learner01"], hidden=(), timeout=5) as mine:
        assert mine.call("save_memory", {"note": "My locker code is 3-1-4."}).content == \
            "Saved to learner01's notes (note 1): My locker code is 3-1-4."
        assert "locker code is 3-1-4" in mine.call("my_notes", {"query": "locker"}).content
    for other in ("ada", "bob"):
        with MCPToolbox(url=url, token=tokens[other], context={"user_id": "learner01"}, timeout=5) as theirs:
            for query in ("locker", "*", "3-1-4"):
                assert "locker code" not in theirs.call("my_notes", {"query": query}).content
