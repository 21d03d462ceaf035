"""Start chapter 05's MCP server: `python -m kitchen.mcp [--faults] [--structured] [--http [--host H] [--port N] [--room FILE]]`.

Without `--http` it serves one client over stdin/stdout, which is how `MCPToolbox` and `RawSession`
start it. Nothing but JSON-RPC goes to stdout; logs go to stderr. For a room, `--http --room
room.json` serves only the learners whose bearer tokens the file lists (`--new-room N` first writes
it with N learners, learner01 …, and fresh tokens, readable by its owner only).
"""

from __future__ import annotations

import argparse
import logging
import sys

import anyio

from kitchen.mcp.login import RoomTokens
from kitchen.mcp.server import KitchenServer, serve_http, serve_stdio


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kitchen.mcp", description=__doc__.splitlines()[0])
    parser.add_argument("--faults", action="store_true",
                        help="also offer the fault switches: stall (never answers in time), crash (exits mid-call)")
    parser.add_argument("--structured", action="store_true",
                        help="publish outputSchema, annotations and closed input schemas (MCP 2025-11-25), "
                             "and offer delete_file")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default: 8765)")
    parser.add_argument("--room", metavar="FILE", help="HTTP only: serve the learners (and tokens) in this JSON file")
    parser.add_argument("--new-room", type=int, metavar="N", help="first write --room FILE with N new learners")
    args = parser.parse_args(argv)
    if args.room and not args.http:
        parser.error("--room needs --http: over stdio the only client is the process that started the server")
    if args.new_room:
        if not args.room:
            parser.error("--new-room needs --room FILE to write")
        RoomTokens.generate([f"learner{i:02d}" for i in range(1, args.new_room + 1)]).save(args.room)
        print(f"kitchen.mcp: wrote {args.new_room} learners' tokens to {args.room}", file=sys.stderr)
    room = RoomTokens.load(args.room) if args.room else None
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="kitchen.mcp server: %(levelname)s %(name)s: %(message)s")
    kitchen = KitchenServer(faults=args.faults, room=room, structured=args.structured)
    if args.http:
        login = f", {len(room.tokens)} learners with tokens" if room else ""
        print(f"kitchen.mcp: serving streamable HTTP on http://{args.host}:{args.port}/mcp{login}", file=sys.stderr)
        anyio.run(lambda: serve_http(kitchen, host=args.host, port=args.port))
    else:
        anyio.run(serve_stdio, kitchen)


if __name__ == "__main__":
    main()
