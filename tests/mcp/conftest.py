"""What the MCP tests share: a stand-in server that is a few lines of Python (no MCP SDK to import)."""

from __future__ import annotations

import sys

import pytest

# Answers every request with its method; says "hello" (a notification) before the first answer.
ECHO_SCRIPT = (
    "import json, sys\n"
    "print(json.dumps({'jsonrpc': '2.0', 'method': 'hello'}), flush=True)\n"
    "for line in sys.stdin:\n"
    "    try:\n"
    "        m = json.loads(line)\n"
    "    except ValueError:\n"
    "        print('not json back', flush=True); continue\n"
    "    if 'id' in m:\n"
    "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'echo': m['method']}}), flush=True)\n")


@pytest.fixture
def echo_server() -> list[str]:
    """The command of a process that echoes each request's method back, a line that is not JSON
    gets "not json back", and it ends when its stdin closes (exit code 0)."""
    return [sys.executable, "-c", ECHO_SCRIPT]
