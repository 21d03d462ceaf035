"""The int8 fast mode (`kitchen.model.engines.quantized`): the default only where its kernels run with 8-bit activations.

Where the CPU lacks VNNI (an ARM laptop, an older x86 or AVX2-only CPU), torch's int8 kernel can
use only 7-bit activations and the fast mode is not the default; the tests that need the default
skip there. Whether the chapters' claims hold with a setting is the claims suite's job
(tests/claims). Marked `model`.
"""

import pytest
import torch

from kitchen.model.engines.quantized import decode_step
from kitchen.model.engines.cpu import best_dtype, int8_kernels
from kitchen.model.load import load_model
from tiny import lean_step_matches_forward

pytestmark = pytest.mark.model
QUESTION = [{"role": "user", "content": "What is 1234 × 5678?"}]


@pytest.fixture(scope="module")
def fast():
    if "fbgemm" not in torch.backends.quantized.supported_engines:
        pytest.skip("torch has no x86 int8 kernels (fbgemm) on this machine")
    return load_model("0.5b", "pack", dtype="int8", announce=False)


def test_the_fast_mode_is_the_default_exactly_where_its_kernels_run_with_8_bit_activations():
    assert (best_dtype() == "int8") == int8_kernels()


def test_the_fast_mode_is_announced(fast):
    assert "dtype: int8" in fast.describe() and "re-quantized to int8" in fast.info.details()


def test_the_lean_decode_step_is_the_transformers_forward(fast):
    assert fast.step is decode_step and lean_step_matches_forward(fast, QUESTION)
