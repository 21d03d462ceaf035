"""llama.cpp's own `llama-server` on the offline packs' GGUF files: the classroom server that batches.

    make classroom                                          # the same as:
    python -m kitchen.model.server.llama_server --host 0.0.0.0 --port 8080 --parallel 30

It is built from the pinned source by `kitchen.model.server.build` (`make llama-server`). Each of
its `--parallel N` slots holds one request; the requests in the slots are decoded together, one
batch per step (continuous batching: a request joins or leaves the batch between steps). So thirty
learners asking different questions share each pass through the model instead of queueing behind
one another, as they do on llama-cpp-python's server (`kitchen.model.server.llama_python`).

With one tier it serves that GGUF file; with several it runs in llama.cpp's router mode: a preset
file lists each GGUF file under its name, the router starts one `llama-server` per model (all
loaded at start) and sends each request to the one it names. Each slot has a KV cache of its own,
`CONTEXT` tokens (`--no-kv-unified`: in one cache shared by all slots, every token's attention would
run over every slot's tokens, masked, so a room of 30 would pay 30 times the attention). No web page (`--no-ui`), no download: only the API, on 127.0.0.1 unless told.

    with llama_cpp_server("0.5b", "1.5b", parallel=4) as url:
        model = load_model("1.5b", source="server", url=url)  # asks for the 1.5B file
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import httpx

from kitchen.model import packs
from kitchen.model.server import build
from kitchen.model.server.ports import free_port, running

CONTEXT = 4096  # tokens of prompt and reply one slot may hold (the chapters' longest run fits)


def preset(ggufs: Sequence[Path]) -> str:
    """The router's preset file: each GGUF file under its name without the folder (what
    `/v1/models` lists and a request names), loaded at start.

    >>> print(preset([Path("/p/Qwen-0.5B.gguf")]))
    version = 1
    <BLANKLINE>
    [Qwen-0.5B]
    model = /p/Qwen-0.5B.gguf
    load-on-startup = true
    <BLANKLINE>
    """
    sections = [f"[{g.stem}]\nmodel = {g}\nload-on-startup = true\n" for g in ggufs]
    return "version = 1\n\n" + "\n".join(sections)


def command(server: Path, model: list[str], *, parallel: int, host: str, port: int,
            threads: int | None = None, models: int = 1) -> list[str]:
    """The command line: `model` is ["-m", file, "--alias", name], or ["--models-preset", file]
    for a router over `models` models."""
    threads = threads or os.cpu_count() or 1
    return [str(server), *model, "--host", host, "--port", str(port), "--parallel", str(parallel),
            "--ctx-size", str(parallel * CONTEXT), "--no-kv-unified", "--threads", str(threads),
            "--threads-batch", str(threads), "--no-ui", "--no-warmup"] + (
                # a router loads them all (its "0 = unlimited" is refused at start in this version)
                ["--models-max", str(models)] if models > 1 else [])


def ready(url: str, names: Sequence[str]) -> bool:
    """True once the server lists every name as a model it can answer for (a router lists a model
    before it has loaded it: then its status says so)."""
    try:
        answer = httpx.get(f"{url}/v1/models", timeout=1)
        listed = {m["id"]: m for m in answer.json()["data"]} if answer.status_code == 200 else {}
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return False
    status = [str((listed.get(n) or {}).get("status", {}).get("value", "loaded")) if n in listed else "" for n in names]
    return all(s == "loaded" for s in status)


@contextmanager
def llama_cpp_server(*tiers: str, parallel: int = 4, host: str = "127.0.0.1", port: int | None = None,
                     seconds: float = 180.0, log: Path | None = None) -> Iterator[str]:
    """Serve the tiers' offline packs (the 0.5B when no tier is named) with `parallel` slots; yield
    the URL; stop the server on leaving. RuntimeError if `llama-server` is not built (`make llama-server`)."""
    server = build.require()
    ggufs = [packs.assemble(packs.PACKS[t], progress=False) for t in (tiers or ("0.5b",))]
    port = port or free_port()
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
    with tempfile.TemporaryDirectory(prefix="kitchen-llama-server-") as folder:
        if len(ggufs) == 1:
            model = ["-m", str(ggufs[0]), "--alias", ggufs[0].stem]
        else:
            (Path(folder) / "models.ini").write_text(preset(ggufs))
            model = ["--models-preset", str(Path(folder) / "models.ini")]
        # the router would also list models from llama.cpp's download cache: point it at nothing
        env = {**os.environ, "LLAMA_CACHE": str(Path(folder) / "no-downloads")}
        with running(command(server, model, parallel=parallel, host=host, port=port, models=len(ggufs)), log or Path(folder) / "server.log",
                     lambda: ready(url, [g.stem for g in ggufs]), seconds, "llama.cpp's llama-server", env=env):
            yield url


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the offline packs with llama.cpp's llama-server.")
    parser.add_argument("--tiers", nargs="+", default=["0.5b", "1.5b"], choices=sorted(packs.PACKS))
    parser.add_argument("--parallel", type=int, default=30, help="slots: requests decoded together")
    parser.add_argument("--host", default="127.0.0.1", help="0.0.0.0 to serve the room's network")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args(argv)
    record = build.built() or {}
    print(f"llama-server ({record.get('label', 'building first')}), {args.parallel} slots, "
          f"tiers {' '.join(args.tiers)}: starting...", flush=True)
    with llama_cpp_server(*args.tiers, parallel=args.parallel, host=args.host, port=args.port) as url:
        where = url if args.host == "127.0.0.1" else f"http://{args.host}:{args.port} (this machine's address)"
        print(f"serving at {where}; learners run: KITCHEN_MODEL=server:http://HOST:{args.port} make lab", flush=True)
        print("Ctrl-C stops it.", flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill` stops llama-server too
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
