"""What client and server agree on (`kitchen.mcp.conventions`): the protocol version, the SDK check,
the command that starts the server."""

from __future__ import annotations

import pytest
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from kitchen.mcp.conventions import FAULT_TOOLS, PROTOCOL_VERSION, STRUCTURED_TOOLS, check_sdk, server_command


def test_the_sdk_check_raises_a_clear_error_instead_of_asserting_at_import():
    check_sdk()  # the pinned SDK speaks the chapter's version
    with pytest.raises(RuntimeError, match="no longer speaks protocol version 2025-11-25"):
        check_sdk(["2024-11-05"])


def test_the_pinned_version_is_a_handshake_version():
    # 2026-07-28 has no handshake and delivers list_changed only on subscriptions/listen streams.
    assert PROTOCOL_VERSION in HANDSHAKE_PROTOCOL_VERSIONS and PROTOCOL_VERSION not in MODERN_PROTOCOL_VERSIONS


def test_the_server_command():
    command = server_command(faults=True, http=True, port=9000, python="python3")
    assert command == ["python3", "-m", "kitchen.mcp", "--faults", "--http", "--port", "9000"]
    structured = server_command(structured=True, faults=True, python="python3")
    assert structured == ["python3", "-m", "kitchen.mcp", "--faults", "--structured"]


def test_the_optional_tools_are_named_apart():
    assert STRUCTURED_TOOLS == ("delete_file",) and not set(STRUCTURED_TOOLS) & set(FAULT_TOOLS)
