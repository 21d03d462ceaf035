"""llama.cpp's OpenAI-compatible server on an offline pack's GGUF file: the classroom server on a CPU.

`llama-cpp-python[server]` (the `server` extra, pinned in requirements.lock, built from source for
this CPU by `kitchen.model.server.build.wheel`) serves one request at a time. By default a new request cuts off a reply
that is still streaming (`interrupt_requests`); a room of learners must not cut each other off, so
it is turned off here. It is started through `kitchen.model.server.logprob_fix`, which makes its replies with
log-probabilities several times faster without changing them. It can serve several GGUF files
under their names; a request names the model it wants, and the server swaps it in (one loaded
at a time: a swap costs a second or two of loading), so one server can stand in for both tiers.
(llama.cpp's own `llama-server`, built from the same source, has parallel slots with continuous
batching; it is not a pip package, so the tests and `make` use this one.)

    with llama_python_server("0.5b", "1.5b") as url:
        model = load_model("0.5b", source="server", url=url)  # asks for the 0.5B file
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import httpx

from kitchen.model import packs
from kitchen.settings import need
from kitchen.model.server.ports import free_port, running

CONTEXT = 4096  # tokens of prompt and reply a request may hold (the chapters' longest run fits)


def config(ggufs: Sequence[Path], port: int, host: str = "127.0.0.1", threads: int | None = None) -> dict:
    """The server's settings: each GGUF file served under its name without the folder (what the
    server reports as its model, and what a request names); the first is loaded at start."""
    threads = threads or os.cpu_count() or 1
    return {"host": host, "port": port, "interrupt_requests": False,
            "models": [{"model": str(g), "model_alias": g.stem, "n_ctx": CONTEXT, "n_threads": threads,
                        "n_threads_batch": threads, "verbose": False} for g in ggufs]}


def command(config_file: Path, *, ranked_in_full: bool = False) -> list[str]:
    """The server's command line: `kitchen.model.server.logprob_fix` (llama_cpp's server with its ranking of
    candidates made fast, same replies), or llama_cpp's own with `ranked_in_full`."""
    server = "llama_cpp.server" if ranked_in_full else "kitchen.model.server.logprob_fix"
    return [sys.executable, "-m", server, "--config_file", str(config_file)]


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/v1/models", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def llama_python_server(*tiers: str, port: int | None = None, seconds: float = 120.0,
                 ranked_in_full: bool = False) -> Iterator[str]:
    """Serve the tiers' offline packs (their GGUF files, assembled if needed; the 0.5B when no tier
    is named) on 127.0.0.1; yield the URL; stop the server on leaving. Raises if `llama_cpp` is not
    installed or the server fails to start. `ranked_in_full`: llama_cpp's server unchanged (see
    `kitchen.model.server.logprob_fix`), for the test and the benchmark that compare the two."""
    need("llama_cpp", "server")  # only to fail early with a clear message
    ggufs = [packs.assemble(packs.PACKS[t], progress=False) for t in (tiers or ("0.5b",))]
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="kitchen-llama-") as folder:  # its log: about 180 KB at start-up
        settings = Path(folder) / "server.json"
        settings.write_text(json.dumps(config(ggufs, port), indent=1))
        with running(command(settings, ranked_in_full=ranked_in_full), Path(folder) / "server.log",
                     lambda: _answers(url), seconds, "llama.cpp's server"):
            yield url
