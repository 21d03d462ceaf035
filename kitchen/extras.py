"""The optional installs (pyproject.toml's extras) and the clear error for a module one of them brings.

The learner set (`make lab`) has what the chapters import. The `server` extra adds llama.cpp's
server (llama-cpp-python, built from source), `demo` adds Voilà, `dev` the test tools; `make test`
installs all three (`make venv-all`). A cell that needs an extra which is not installed gets
`MissingExtra`, an ImportError that names the extra and the command that brings it.

>>> need("json", "server").__name__
'json'
>>> need("no_such_module_here", "server")
Traceback (most recent call last):
...
kitchen.extras.MissingExtra: this needs no_such_module_here, from the `server` extra (llama.cpp's server, built from source: a C++ compiler and a few minutes). Install it with `make venv-all` (every extra), or `.venv/bin/python -m pip install -c requirements.lock -e '.[server]'`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

EXTRAS = {
    "server": "llama.cpp's server, built from source: a C++ compiler and a few minutes",
    "demo": "Voilà, for `make demo`",
    "dev": "the test tools",
}


class MissingExtra(ImportError):
    """A module that an extra of pyproject.toml brings is not installed."""


def need(module: str, extra: str) -> ModuleType:
    """Import `module`, or raise `MissingExtra` naming the extra and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(
            f"this needs {module}, from the `{extra}` extra ({EXTRAS[extra]}). Install it with "
            f"`make venv-all` (every extra), or `.venv/bin/python -m pip install -c requirements.lock "
            f"-e '.[{extra}]'`.") from None
