"""What the BFCL tests share: a tiny random model (tests/tiny.py), never a real one."""

import pytest

from tiny import tiny_model


@pytest.fixture(scope="module")
def model():
    return tiny_model()
