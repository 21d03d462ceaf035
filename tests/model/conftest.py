"""Fixtures shared by the tests of `kitchen.model`."""

import pytest

from tiny import tiny_model


@pytest.fixture
def model():
    """A fresh tiny random Qwen2 `LiveModel` (tests/tiny.py): the real tokenizer, no download.
    A test module that needs a real model defines its own `model` fixture, which wins."""
    return tiny_model()
