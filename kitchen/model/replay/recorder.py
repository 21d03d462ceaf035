"""Recording a live model's runs: every call passed through and appended to a recording file.

Owns `RecordingModel` and `wrap_for_recording`. `scripts/record.py` switches it on with
`KITCHEN_RECORD=<name>` (read by `kitchen.model.load`); the file format is `kitchen.model.replay.runs`.
Recordings are never written or edited by hand.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from kitchen.model.interface import ChatModel, TemplateChat
from kitchen.model.replay.runs import (FORMAT, RECORD_TOP_K, RECORDINGS, batch_key, dump_recording,
                         read_recording, run_from_generation, run_key, score_key)
from kitchen.model.replies import FinishedStream, Generation
from kitchen.tools.schemas import as_schema


class RecordingModel(TemplateChat):
    """Wraps a live model; every call is passed through and appended to a recording file.

    Runs are recorded with `RECORD_TOP_K` candidates per step and with the KV-cache reuse the caller
    asked for (noted in the run), so that the same calls in the same order on the same model
    reproduce the same tokens.
    """

    def __init__(self, inner: ChatModel, name: str, folder: Path | None = None):
        self.inner, self.info, self.tok = inner, inner.info, inner.tok
        self.path = Path(folder or RECORDINGS / inner.info.tier) / f"{name}.json"

    def __getattr__(self, attr: str) -> Any:  # hf_model, kv and the rest of the live model
        return getattr(self.inner, attr)

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False, grammar=None) -> FinishedStream:
        settings = {"max_new_tokens": max_new_tokens, "stop": list(stop),
                    "top_k": max(top_k, RECORD_TOP_K), "reuse_cache": reuse_cache}
        if grammar:
            settings["grammar"] = grammar
        gen = self.inner.stream(messages, tools, prefix=prefix, max_new_tokens=max_new_tokens,
                                stop=stop, top_k=settings["top_k"], reuse_cache=reuse_cache,
                                grammar=grammar).run()
        self._append(run_from_generation(
            gen, kind="generate", key=run_key(gen.prompt, max_new_tokens, stop, grammar), messages=messages,
            tools=[as_schema(t) for t in tools or []], prefix=prefix, settings=settings))
        for s in gen.tokens:
            s.top = s.top[:top_k]
        return FinishedStream(gen)

    def generate_batch(self, conversations, tools=None, *, max_new_tokens=256) -> list[Generation]:
        gens = self.inner.generate_batch(conversations, tools, max_new_tokens=max_new_tokens)
        self._append_rows(gens, max_new_tokens, list(conversations), [as_schema(t) for t in tools or []])
        return gens

    def generate_prompts(self, prompts, *, max_new_tokens=256, grammars=None) -> list[Generation]:
        gens = self.inner.generate_prompts(prompts, max_new_tokens=max_new_tokens, grammars=grammars)
        self._append_rows(gens, max_new_tokens, [[] for _ in gens], [], grammars)
        return gens

    def _append_rows(self, gens, max_new_tokens, conversations, tools, grammars=None) -> None:
        """Record each row of a batch (the prompt, and the messages when the caller gave them)."""
        for messages, gen, grammar in zip(conversations, gens, grammars or [None] * len(gens)):
            settings = {"max_new_tokens": max_new_tokens, "stop": [], "top_k": 0, "batch": len(gens),
                        **({"grammar": grammar} if grammar else {})}
            self._append(run_from_generation(
                gen, kind="batch", key=batch_key(gen.prompt, max_new_tokens, grammar), messages=messages,
                tools=tools, prefix="", settings=settings))

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
                    "recorded_by": "scripts/record.py (a live model through kitchen.model.replay.recorder.RecordingModel)",
                    "recorded_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                    "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
                    "runs": []}
        if data["model"] != self.info.to_dict():
            raise ValueError(f"{self.path} was recorded from another model: {data['model']}")
        if all(r["key"] != run["key"] for r in data["runs"]):
            data["runs"].append(run)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(dump_recording(data))


def wrap_for_recording(model: ChatModel, name: str | None) -> ChatModel:
    """Wrap a live model in a `RecordingModel` when `name` (from `KITCHEN_RECORD`) is set."""
    if not name or model.info.source == "replay":
        return model
    return RecordingModel(model, name)
