"""A model that replays recorded runs: the same interface as a live model, no weights at all.

Owns `ReplayModel`, which answers exactly the requests recorded in `data/recordings/<tier>/`
(see `kitchen.model.replay.runs` for the format) and raises a clear `ReplayMiss` for anything else, so a
classroom can run the notebooks with no model download. Does not record (`kitchen.model.replay.recorder`).
"""

from __future__ import annotations

from pathlib import Path

from kitchen.model.interface import ModelInfo, TemplateChat
from kitchen.model.replay.runs import (RECORD_TOP_K, RECORDINGS, batch_key, generation_from_run, read_recording,
                         run_key, score_key)
from kitchen.model.replies import FinishedStream, Generation
from kitchen.model.tokenizer import offline_tokenizer


class ReplayMiss(LookupError):
    """A request that no recording answers."""


class ReplayModel(TemplateChat):
    """Answers recorded requests for one tier; anything else is a clear `ReplayMiss`."""

    def __init__(self, tier: str, folder: Path | None = None):
        self.tier = tier
        self.folder = Path(folder or RECORDINGS / tier)
        files = sorted(self.folder.glob("*.json"))
        if not files:
            raise ReplayMiss(f"No recordings for the {tier.upper()} tier in {self.folder}.")
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
        self.tok = offline_tokenizer(tier)

    def questions(self) -> list[str]:
        """The user messages that have recorded answers (for pickers and error messages)."""
        seen: list[str] = []
        for run in self.runs.values():
            for m in run.get("messages", []):
                if m["role"] == "user" and m["content"] not in seen:
                    seen.append(m["content"])
        return seen

    def stream(self, messages, tools=None, *, prefix="", max_new_tokens=256, stop=(), top_k=0,
               reuse_cache=False, grammar=None) -> FinishedStream:
        prompt = self.render(messages, tools, prefix=prefix)
        run = self.runs.get(run_key(prompt, max_new_tokens, stop, grammar))
        if run is None or run["kind"] != "generate":
            last_user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
            raise ReplayMiss(
                f"No recording answers this request to the {self.tier.upper()} tier "
                f"(last user message: {last_user[:80]!r}). Replay only repeats recorded runs; "
                f"recorded questions include: {self.questions()[:6]}. "
                f"Use a live source (KITCHEN_MODEL={self.tier}:pack) to ask something new.")
        return FinishedStream(generation_from_run(run, top_k))

    def generate_prompts(self, prompts, *, max_new_tokens=256, grammars=None) -> list[Generation]:
        out = []
        for prompt, grammar in zip(prompts, grammars or [None] * len(prompts)):
            run = self.runs.get(batch_key(prompt, max_new_tokens, grammar))
            if run is None:
                last_user = prompt.rsplit("<|im_start|>user\n", 1)[-1][:80]
                raise ReplayMiss(f"No recording answers this batched request to the {self.tier.upper()} "
                                 f"tier ({last_user!r}).")
            out.append(generation_from_run(run, RECORD_TOP_K))
        return out

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        run = self.runs.get(score_key(prompt, continuation))
        if run is None:
            raise ReplayMiss("No recording of this log-probability request.")
        return [tuple(x) for x in run["logprobs"]]
