"""The Qwen2.5 tokenizer shipped in `data/`, for models that run without weights.

Owns `offline_tokenizer(tier)`: the tokenizer in `data/tokenizer/` (the same in both packs) with
the tier's pack chat template, as the recordings were made. Replayed and scripted models use it;
live models use the tokenizer that came with their weights (`kitchen.model.weights`).
"""

from __future__ import annotations

import functools
from typing import Any

from kitchen.settings import DATA

TOKENIZER = DATA / "tokenizer"
CHAT_TEMPLATES = DATA / "chat_templates"  # each pack's own chat template (they differ slightly)


@functools.cache
def offline_tokenizer(tier: str) -> Any:
    """The tokenizer from `data/tokenizer/` with the tier's pack chat template (one per tier)."""
    from transformers import AutoTokenizer  # a second to import: only when a tokenizer is needed

    tok = AutoTokenizer.from_pretrained(TOKENIZER)
    tok.chat_template = (CHAT_TEMPLATES / f"{tier}.jinja").read_text()
    return tok
