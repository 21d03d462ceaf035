"""Recordings of real model runs, and a model that replays them.

A recording file (`data/recordings/<tier>/<name>.json`) holds the model that produced it (exact
name, source, dtype), the versions and date, and a list of runs. A run is one `generate` call
(messages, tools, settings, the rendered prompt, its token ids, every generated token with its
probability and top-k candidates, the text, the stop reason and the timings) or one `logprobs` call.

Recordings are only ever written by a live model, through `RecordingModel`, switched on by the
`KITCHEN_RECORD=<name>` environment variable (see `scripts/record.py`). They are never written or
edited by hand. `ReplayModel` answers exactly the requests that were recorded, with the same
interface as a live model, so a classroom can run the notebooks with no model download.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Iterator, Sequence

from .generation import Candidate, Generation, Token
from .models import ChatModel, ModelInfo, TIERS
from .paths import DATA

FORMAT = "llm-kitchen-recording/1"
RECORD_ENV = "KITCHEN_RECORD"
RECORD_TOP_K = 5  # candidates kept per step in every recording
RECORDINGS = DATA / "recordings"
TOKENIZER = DATA / "tokenizer"  # the Qwen2.5 tokenizer, the same in both packs
CHAT_TEMPLATES = DATA / "chat_templates"  # each pack's own chat template (they differ slightly)


class ReplayMiss(LookupError):
    """A request that no recording answers."""


def run_key(prompt: str, max_new_tokens: int, stop: Sequence[str]) -> str:
    """Identity of a generate request: the exact prompt text and the settings that shape the reply."""
    blob = json.dumps([prompt, max_new_tokens, sorted(stop)], ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def batch_key(prompt: str, max_new_tokens: int) -> str:
    """Identity of one row of a batched request (batched replies are recorded apart)."""
    return run_key(prompt, max_new_tokens, ["(batch)"])


def score_key(prompt: str, continuation: str) -> str:
    return hashlib.sha256(json.dumps(["logprobs", prompt, continuation]).encode()).hexdigest()[:24]


def _token_to_json(step: Token) -> dict:
    return {"id": step.token_id, "text": step.text, "p": step.prob,
            "top": [[c.token_id, c.text, c.prob] for c in step.top]}


def _token_from_json(d: dict, top_k: int) -> Token:
    return Token(d["id"], d["text"], d["p"], [Candidate(i, t, p) for i, t, p in d["top"][:top_k]])


def generation_from_run(run: dict, top_k: int = RECORD_TOP_K) -> Generation:
    t = run["timings"]
    return Generation(prompt=run["prompt"], prompt_ids=run["prompt_ids"], token_ids=run["token_ids"],
                      text=run["text"], tokens=[_token_from_json(s, top_k) for s in run["tokens"]],
                      stop_reason=run["stop_reason"], stop_string=run["stop_string"],
                      prefilled_tokens=t["prefilled_tokens"], prefill_seconds=t["prefill_seconds"],
                      decode_seconds=t["decode_seconds"])


def read_recording(path: Path) -> dict:
    data = json.loads(Path(path).read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a recording in format {FORMAT}.")
    return data


# ---------------------------------------------------------------------------------------------
# Replaying


class ReplayStream:
    """Same use as `TokenStream`: iterate for steps, `run()` or `result` for the `Generation`."""

    def __init__(self, generation: Generation, delay: float = 0.0):
        self._generation, self.delay = generation, delay
        self.result: Generation | None = None

    def __iter__(self) -> Iterator[Token]:
        for step in self._generation.tokens:
            if self.delay:
                time.sleep(self.delay)
            yield step
        self.result = self._generation

    def run(self) -> Generation:
        for _ in self:
            pass
        return self._generation


@functools.cache
def load_replay_tokenizer(tier: str):
    """The tokenizer from `data/tokenizer/` with the tier's pack chat template, as recorded."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(TOKENIZER)
    tok.chat_template = (CHAT_TEMPLATES / f"{tier}.jinja").read_text()
    return tok


class ReplayModel(ChatModel):
    """Answers recorded requests for one tier; anything else is a clear `ReplayMiss`."""

    def __init__(self, tier: str, folder: Path | None = None, delay: float = 0.0):
        self.tier, self.delay = tier, delay
        self.folder = Path(folder or RECORDINGS / tier)
        files = sorted(self.folder.glob("*.json"))
        if not files:
            raise ReplayMiss(f"No recordings for the {TIERS[tier].label} tier in {self.folder}.")
        self.runs: dict[str, dict] = {}
        models, dates = set(), set()
        for f in files:
            data = read_recording(f)
            models.add((data["model"]["model_name"], data["model"]["source"], data["model"]["dtype"]))
            dates.add(data["recorded_at"][:10])
            for run in data["runs"]:
                self.runs.setdefault(run["key"], run)
        if len(models) != 1:
            raise ValueError(f"Recordings in {self.folder} come from different models: {sorted(models)}")
        name, source, dtype = models.pop()
        n = len(self.runs)
        origin = (f"replay of {n} recorded run{'s' if n != 1 else ''} in data/recordings/{tier}/, recorded "
                  f"{', '.join(sorted(dates))} from the {'offline pack' if source == 'pack' else source} "
                  f"by scripts/record.py")
        self.info = ModelInfo(tier, name, "replay", origin, dtype, engine="replay")
        self.tok = load_replay_tokenizer(tier)

    def questions(self) -> list[str]:
        """The user messages that have recorded answers (for pickers and error messages)."""
        seen: list[str] = []
        for run in self.runs.values():
            for m in run.get("messages", []):
                if m["role"] == "user" and m["content"] not in seen:
                    seen.append(m["content"])
        return seen

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False) -> ReplayStream:
        prompt = self.render(messages, tools, prefix=prefix)
        run = self.runs.get(run_key(prompt, max_new_tokens, stop))
        if run is None or run["kind"] != "generate":
            last_user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
            raise ReplayMiss(
                f"No recording answers this request to the {TIERS[self.tier].label} tier "
                f"(last user message: {last_user[:80]!r}). Replay only repeats recorded runs; "
                f"recorded questions include: {self.questions()[:6]}. "
                f"Use a live source (KITCHEN_MODEL={self.tier}:pack) to ask something new.")
        return ReplayStream(generation_from_run(run, top_k), self.delay)

    def generate_batch(self, conversations, tools=None, *, max_new_tokens=256) -> list[Generation]:
        out = []
        for messages in conversations:
            prompt = self.render(messages, tools)
            run = self.runs.get(batch_key(prompt, max_new_tokens))
            if run is None:
                raise ReplayMiss(f"No recording answers this batched request to the {TIERS[self.tier].label} "
                                 f"tier ({messages[-1]['content'][:80]!r}).")
            out.append(generation_from_run(run))
        return out

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        run = self.runs.get(score_key(prompt, continuation))
        if run is None:
            raise ReplayMiss("No recording of this log-probability request.")
        return [tuple(x) for x in run["logprobs"]]


# ---------------------------------------------------------------------------------------------
# Recording


class RecordingModel(ChatModel):
    """Wraps a live model; every call is passed through and appended to a recording file.

    Runs are recorded with `RECORD_TOP_K` candidates per step and with the KV-cache reuse the caller
    asked for (noted in the run), so that the same calls in the same order on the same model
    reproduce the same tokens.
    """

    def __init__(self, inner: ChatModel, name: str, folder: Path | None = None):
        self.inner, self.info, self.tok = inner, inner.info, inner.tok
        self.path = Path(folder or RECORDINGS / inner.info.tier) / f"{name}.json"

    def __getattr__(self, attr):  # hf_model, kv and the rest of the live model
        return getattr(self.inner, attr)

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False) -> ReplayStream:
        from .schemas import as_schema

        stream = self.inner.stream(messages, tools, prefix=prefix, max_new_tokens=max_new_tokens,
                                   stop=stop, top_k=max(top_k, RECORD_TOP_K), reuse_cache=reuse_cache)
        gen = stream.run()
        self._append({
            "kind": "generate", "key": run_key(gen.prompt, max_new_tokens, stop),
            "messages": list(messages), "tools": [as_schema(t) for t in tools or []],
            "prefix": prefix, "settings": {"max_new_tokens": max_new_tokens, "stop": list(stop),
                                           "top_k": max(top_k, RECORD_TOP_K), "reuse_cache": reuse_cache},
            "prompt": gen.prompt, "prompt_ids": gen.prompt_ids, "token_ids": gen.token_ids,
            "text": gen.text, "stop_reason": gen.stop_reason, "stop_string": gen.stop_string,
            "tokens": [_token_to_json(s) for s in gen.tokens],
            "timings": {"prefilled_tokens": gen.prefilled_tokens,
                        "prefill_seconds": round(gen.prefill_seconds, 4),
                        "decode_seconds": round(gen.decode_seconds, 4)},
        })
        for s in gen.tokens:
            s.top = s.top[:top_k]
        return ReplayStream(gen)

    def generate_batch(self, conversations, tools=None, *, max_new_tokens=256) -> list[Generation]:
        from .schemas import as_schema

        gens = self.inner.generate_batch(conversations, tools, max_new_tokens=max_new_tokens)
        for messages, gen in zip(conversations, gens):
            self._append({
                "kind": "batch", "key": batch_key(gen.prompt, max_new_tokens), "messages": list(messages),
                "tools": [as_schema(t) for t in tools or []], "prefix": "",
                "settings": {"max_new_tokens": max_new_tokens, "stop": [], "top_k": 0, "batch": len(gens)},
                "prompt": gen.prompt, "prompt_ids": gen.prompt_ids, "token_ids": gen.token_ids,
                "text": gen.text, "stop_reason": gen.stop_reason, "stop_string": None,
                "tokens": [_token_to_json(t) for t in gen.tokens],
                "timings": {"prefilled_tokens": gen.prefilled_tokens, "prefill_seconds": 0.0,
                            "decode_seconds": round(gen.decode_seconds, 4)},
            })
        return gens

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        out = self.inner.logprobs(prompt, continuation)
        self._append({"kind": "logprobs", "key": score_key(prompt, continuation), "prompt": prompt,
                      "continuation": continuation, "logprobs": [list(x) for x in out]})
        return out

    def _append(self, run: dict) -> None:
        import torch
        import transformers

        if self.path.is_file():
            data = read_recording(self.path)
        else:
            data = {"format": FORMAT, "model": self.info.to_dict(),
                    "recorded_by": "scripts/record.py (a live model through kitchen.replay.RecordingModel)",
                    "recorded_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                    "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
                    "runs": []}
        if data["model"] != self.info.to_dict():
            raise ValueError(f"{self.path} was recorded from another model: {data['model']}")
        if all(r["key"] != run["key"] for r in data["runs"]):
            data["runs"].append(run)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(dump_recording(data))


def dump_recording(data: dict) -> str:
    """JSON with the header readable and one run per line, so diffs stay small."""
    head = {k: v for k, v in data.items() if k != "runs"}
    lines = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    runs = ",\n".join("  " + json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in data["runs"])
    return f'{lines},\n "runs": [\n{runs}\n ]\n}}\n'



def wrap_for_recording(model: ChatModel) -> ChatModel:
    """Wrap a live model in a `RecordingModel` when `KITCHEN_RECORD` names a recording."""
    name = os.environ.get(RECORD_ENV)
    if not name or model.info.source == "replay":
        return model
    return RecordingModel(model, name)
