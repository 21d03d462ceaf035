"""The recording file format: how a model's runs are keyed, written and read back.

A recording (`data/recordings/<tier>/<name>.json`) holds the model that produced it (exact name,
source, dtype), the versions and date, and a list of runs: one `generate` call (messages, tools,
settings, the rendered prompt, its token ids, every token with its probability and top-k
candidates, the text, the stop reason, the timings), one batch row or one `logprobs` call.
Owns the keys and the conversion to and from JSON; `kitchen.model.replay.recorder` writes files,
`kitchen.model.replay.player` answers from them. Files are only ever written by a live model.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

from kitchen.model.replies import Candidate, Generation, Token
from kitchen.settings import DATA

FORMAT = "llm-kitchen-recording/1"
RECORD_TOP_K = 5  # candidates kept per step in every recording
RECORDINGS = DATA / "recordings"


def run_key(prompt: str, max_new_tokens: int, stop: Sequence[str], grammar: str | None = None) -> str:
    """Identity of a generate request: the exact prompt text and the settings that shape the reply
    (a grammar, when one held the reply)."""
    parts: list = [prompt, max_new_tokens, sorted(stop)] + ([grammar] if grammar else [])
    blob = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def batch_key(prompt: str, max_new_tokens: int, grammar: str | None = None) -> str:
    """Identity of one row of a batched request (batched replies are recorded apart)."""
    return run_key(prompt, max_new_tokens, ["(batch)"], grammar)


def score_key(prompt: str, continuation: str) -> str:
    return hashlib.sha256(json.dumps(["logprobs", prompt, continuation]).encode()).hexdigest()[:24]


def _token_to_json(step: Token) -> dict:
    """A candidate is [id, text, p], plus a 4th item under a grammar: whether it was allowed."""
    return {"id": step.token_id, "text": step.text, "p": step.prob,
            "top": [[c.token_id, c.text, c.prob] + ([] if c.allowed is None else [c.allowed])
                    for c in step.top]}


def _token_from_json(d: dict, top_k: int) -> Token:
    return Token(d["id"], d["text"], d["p"], [Candidate(*c) for c in d["top"][:top_k]])


def run_from_generation(gen: Generation, *, kind: str, key: str, messages: Sequence[dict],
                        tools: list[dict], prefix: str, settings: dict) -> dict:
    """One generate run (or batch row) as the JSON object a recording holds."""
    return {
        "kind": kind, "key": key, "messages": list(messages), "tools": tools, "prefix": prefix,
        "settings": settings, "prompt": gen.prompt, "prompt_ids": gen.prompt_ids,
        "token_ids": gen.token_ids, "text": gen.text, "stop_reason": gen.stop_reason,
        "stop_string": gen.stop_string, "tokens": [_token_to_json(s) for s in gen.tokens],
        "timings": {"prefilled_tokens": gen.prefilled_tokens,
                    "prefill_seconds": round(gen.prefill_seconds, 4),
                    "decode_seconds": round(gen.decode_seconds, 4),
                    **({"mask_seconds": round(gen.mask_seconds, 4)} if gen.mask_seconds else {})},
    }


def generation_from_run(run: dict, top_k: int = RECORD_TOP_K) -> Generation:
    t = run["timings"]
    return Generation(prompt=run["prompt"], prompt_ids=run["prompt_ids"], token_ids=run["token_ids"],
                      text=run["text"], tokens=[_token_from_json(s, top_k) for s in run["tokens"]],
                      stop_reason=run["stop_reason"], stop_string=run["stop_string"],
                      prefilled_tokens=t["prefilled_tokens"], prefill_seconds=t["prefill_seconds"],
                      decode_seconds=t["decode_seconds"], mask_seconds=t.get("mask_seconds", 0.0))


def read_recording(path: Path) -> dict:
    data = json.loads(Path(path).read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a recording in format {FORMAT}.")
    return data


def dump_recording(data: dict) -> str:
    """JSON with the header readable and one run per line, so diffs stay small."""
    head = {k: v for k, v in data.items() if k != "runs"}
    lines = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    runs = ",\n".join("  " + json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in data["runs"])
    return f'{lines},\n "runs": [\n{runs}\n ]\n}}\n'
