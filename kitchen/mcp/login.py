"""Logins for a room: one bearer token per learner, checked by chapter 05's server over HTTP.

MCP's standard part: over HTTP, a client proves who it is with `Authorization: Bearer <token>` on
every request, and a server that does not accept the token answers 401 (the specification's
"Authorization" section, built on OAuth 2.1). The SDK does the checking: its bearer middleware
calls a *token verifier*, and `RoomTokens` is ours. This project's convention: the tokens are
handed out by the teacher from one file (no OAuth server), and the verified token's `client_id`
is the learner's name, which the server uses as the user id of `my_notes` and `save_memory`.

>>> room = RoomTokens({"ada": "t-ada", "bob": "t-bob"})
>>> import anyio
>>> anyio.run(room.verify_token, "t-bob").client_id
'bob'
>>> anyio.run(room.verify_token, "t-eve") is None
True

`room_server(names)` starts such a server for a notebook or a test: a fresh token per name, the
server on a free local port, stopped afterwards.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from kitchen.model.server.ports import free_port, listening, running
from kitchen.mcp.conventions import server_command

SCOPE = "kitchen:tools"


class RoomTokens:
    """The learners of a room and their tokens: `{learner name: token}`. A `TokenVerifier`."""

    def __init__(self, tokens: dict[str, str]):
        if not tokens or any(not name or not token for name, token in tokens.items()):
            raise ValueError("a room needs at least one learner, each with a name and a token")
        self.tokens = dict(tokens)

    @classmethod
    def generate(cls, names: list[str]) -> "RoomTokens":
        """A fresh random token for each name."""
        return cls({name: secrets.token_urlsafe(24) for name in names})

    @classmethod
    def load(cls, path: str | Path) -> "RoomTokens":
        """Read a room file (JSON: `{"learner": "token", ...}`)."""
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def save(self, path: str | Path) -> Path:
        """Write the room file, readable by its owner only (it holds every learner's secret)."""
        path = Path(path)
        path.write_text(json.dumps(self.tokens, indent=1) + "\n", encoding="utf-8")
        os.chmod(path, 0o600)
        return path

    def learner(self, token: str) -> str | None:
        """The learner a token belongs to. Every token is compared in constant time, so how long
        a wrong guess takes says nothing about how close it was."""
        found = None
        for name, known in self.tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                found = name
        return found

    async def verify_token(self, token: str) -> AccessToken | None:
        name = self.learner(token)
        return AccessToken(token=token, client_id=name, scopes=[SCOPE]) if name else None


def verified_learner(request: Any) -> str | None:
    """The learner whose token the SDK verified for this HTTP request; None over stdio or without
    a login (the request then carries no authenticated user)."""
    user = request.scope.get("user") if request is not None and hasattr(request, "scope") else None
    return user.access_token.client_id if isinstance(user, AuthenticatedUser) else None


@contextmanager
def room_server(names: list[str], *, faults: bool = False, seconds: float = 30.0) -> Iterator[tuple[str, dict[str, str]]]:
    """Chapter 05's server over HTTP on a free local port, for a room of `names`, each with a new
    token: yields (its URL, {name: token}); stops the server on leaving."""
    tokens = RoomTokens.generate(names)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="kitchen-room-") as folder:
        path = tokens.save(Path(folder) / "room.json")
        command = server_command(faults=faults, http=True, port=port, room=str(path))
        with running(command, Path(folder) / "server.log", lambda: listening(port), seconds, "the MCP server"):
            yield f"http://127.0.0.1:{port}/mcp", dict(tokens.tokens)
