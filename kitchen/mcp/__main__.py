"""Start chapter 05's MCP server: `python -m kitchen.mcp [--faults] [--http [--host H] [--port N]]`.

Without `--http` it serves one client over stdin/stdout, which is how `MCPToolbox` and `RawSession`
start it. Nothing but JSON-RPC goes to stdout; logs go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import sys

import anyio

from .server import KitchenServer, serve_http, serve_stdio


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kitchen.mcp", description=__doc__.splitlines()[0])
    parser.add_argument("--faults", action="store_true",
                        help="also offer the fault switches: stall (never answers in time), crash (exits mid-call)")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default: 8765)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="kitchen.mcp server: %(levelname)s %(name)s: %(message)s")
    kitchen = KitchenServer(faults=args.faults)
    if args.http:
        print(f"kitchen.mcp: serving streamable HTTP on http://{args.host}:{args.port}/mcp", file=sys.stderr)
        anyio.run(lambda: serve_http(kitchen, host=args.host, port=args.port))
    else:
        anyio.run(serve_stdio, kitchen)


if __name__ == "__main__":
    main()
