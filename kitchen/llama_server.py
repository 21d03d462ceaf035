"""llama.cpp's OpenAI-compatible server on an offline pack's GGUF file: the classroom server on a CPU.

`llama-cpp-python[server]` (pinned in requirements.txt, built from source by pip for AVX2, see the
Makefile's LLAMA_CMAKE) serves one
request at a time. By default a new request cuts off a reply that is still streaming
(`interrupt_requests`); a room of learners must not cut each other off, so it is turned off here.
(llama.cpp's own `llama-server`, built from the same source, has parallel slots with continuous
batching; it is not a pip package, so the tests and `make` use this one.)

    with llama_server("0.5b") as url:
        model = load_model("0.5b", source="server", url=url)
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

from . import packs
from .local_servers import free_port, running

CONTEXT = 4096  # tokens of prompt and reply a request may hold (the chapters' longest run fits)


def command(gguf: Path, port: int, host: str = "127.0.0.1", threads: int | None = None) -> list[str]:
    """The command that serves `gguf` at http://host:port (OpenAI API under /v1), under the file's
    name without its folder (what the server reports as its model)."""
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", gguf.stem,
            "--host", host, "--port", str(port), "--n_ctx", str(CONTEXT),
            "--n_threads", str(threads or os.cpu_count() or 1), "--interrupt_requests", "False"]


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/v1/models", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def llama_server(tier: str = "0.5b", *, port: int | None = None, seconds: float = 120.0) -> Iterator[str]:
    """Serve the tier's offline pack (its GGUF file, assembled if needed) on 127.0.0.1; yield the
    URL; stop the server on leaving. Raises if `llama_cpp` is not installed or the server fails."""
    try:
        import llama_cpp  # noqa: F401  (only to fail early with a clear message)
    except ImportError:
        raise RuntimeError("llama-cpp-python is not installed: pip install -r requirements.txt builds it") from None
    gguf = packs.assemble(packs.PACKS[tier], progress=False)
    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="kitchen-llama-") as folder:  # its log: about 180 KB at start-up
        with running(command(gguf, port), Path(folder) / "server.log", lambda: _answers(url), seconds,
                     "llama.cpp's server"):
            yield url
