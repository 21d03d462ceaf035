"""The one interface every model of the series has: live, replayed, recorded or scripted.

Owns `ChatModel` (the protocol the harness and the notebooks use), `ReplyStream` (what `stream`
returns), `ModelInfo` (what is running, in words) and `TemplateChat`, the shared base that renders
a conversation with the tokenizer's chat template. Does not load, run or choose a model, and
imports no torch: `kitchen.model.load` loads, `kitchen.model.live` runs, `kitchen.model.selection` chooses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal, Protocol, Sequence

from kitchen.model.replies import Generation, Token
from kitchen.tools.schemas import as_schema

Source = Literal["hub", "pack", "replay", "scripted", "server"]
Dtype = Literal["bfloat16", "float32", "int8", "int8-decode", "none"]
# int8: int8 weights, float32 activations (kitchen.model.engines.quantized); int8-decode: float32 for the pre-fill,
# an int8 copy of the weights for every one-token-per-row step (kitchen.model.engines.decode_copies).
DTYPES: tuple[Dtype, ...] = ("bfloat16", "float32", "int8", "int8-decode")  # the settings a live model can run in
SOURCE_LABELS: dict[str, str] = {"hub": "Hugging Face hub", "pack": "offline pack", "replay": "recorded runs",
                                 "scripted": "scripted replies", "server": "inference server"}


@dataclass(frozen=True)
class ModelInfo:
    """What is running, in words a learner can check."""

    tier: str  # "0.5b" or "1.5b"
    model_name: str  # the exact model: "Qwen2.5-Coder-0.5B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct"
    source: Source
    origin: str  # where the weights came from, in detail
    dtype: Dtype  # "int8" is the fast mode, see `kitchen.model.engines.quantized`
    engine: str = "transformers"

    def announce(self) -> str:
        """One short line: the exact model, its source and dtype. `details()` says the rest.

        >>> ModelInfo("0.5b", "Qwen2.5-Coder-0.5B-Instruct", "pack", "offline pack …", "float32").announce()
        'Running Qwen2.5-Coder-0.5B-Instruct (0.5B tier) · source: offline pack · dtype: float32'
        """
        label = self.tier.upper()
        if self.source == "replay":
            return (f"Replaying {self.model_name} ({label} tier) · source: {SOURCE_LABELS[self.source]} · "
                    f"dtype when recorded: {self.dtype} · no model runs here")
        return f"Running {self.model_name} ({label} tier) · source: {SOURCE_LABELS[self.source]} · dtype: {self.dtype}"

    def details(self) -> str:
        """Everything about what runs, a line each: where the weights came from and how the engine runs them."""
        rows = [("model", f"{self.model_name} ({self.tier.upper()} tier)"), ("source", f"{self.source}: {self.origin}"),
                ("dtype", self.dtype), ("engine", self.engine)]
        return "\n".join(f"{name:7} {value}" for name, value in rows)

    def to_dict(self) -> dict[str, str]:
        return dict(self.__dict__)


class ReplyStream(Protocol):
    """Iterate for the reply's `Token`s as they come; `run()` (or `result` after) is the whole reply."""

    result: Generation | None

    def __iter__(self) -> Iterator[Token]: ...

    def run(self) -> Generation: ...


Tools = Sequence[Callable | dict] | None


class ChatModel(Protocol):
    """A chat model: render a prompt, stream or generate a greedy reply, score a continuation."""

    info: ModelInfo
    tok: Any  # the Hugging Face tokenizer, chat template included

    def describe(self) -> str: ...

    def render(self, messages: Sequence[dict], tools: Tools = None, *, prefix: str = "",
               add_generation_prompt: bool = True) -> str: ...

    def encode(self, text: str) -> list[int]: ...

    def stream(self, messages: Sequence[dict], tools: Tools = None, *, prefix: str = "",
               max_new_tokens: int = 256, stop: Sequence[str] = (), top_k: int = 0,
               reuse_cache: bool = False, grammar: str | None = None) -> ReplyStream: ...

    def generate(self, messages: Sequence[dict], tools: Tools = None, **kwargs: Any) -> Generation: ...

    def generate_batch(self, conversations: Sequence[Sequence[dict]], tools: Tools = None, *,
                       max_new_tokens: int = 256) -> list[Generation]: ...

    def generate_prompts(self, prompts: Sequence[str], *, max_new_tokens: int = 256,
                         grammars: Sequence[str | None] | None = None) -> list[Generation]: ...

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]: ...


class TemplateChat:
    """What every `ChatModel` of the series shares: the prompt is its tokenizer's chat template.

    Subclasses set `info` and `tok` and supply `stream` (and, where they can, `generate_prompts`
    and `logprobs`).
    """

    info: ModelInfo
    tok: Any

    def describe(self) -> str:
        return self.info.announce()

    def render(self, messages: Sequence[dict], tools: Tools = None, *, prefix: str = "",
               add_generation_prompt: bool = True) -> str:
        """The exact text the model reads: the chat template applied, plus `prefix` if given."""
        schemas = [as_schema(t) for t in tools] if tools else None
        text = self.tok.apply_chat_template(list(messages), tools=schemas, tokenize=False,
                                            add_generation_prompt=add_generation_prompt)
        return text + prefix

    def encode(self, text: str) -> list[int]:
        return self.tok(text, add_special_tokens=False)["input_ids"]

    @property
    def end_ids(self) -> set[int]:
        return {self.tok.convert_tokens_to_ids(t) for t in ("<|im_end|>", "<|endoftext|>")}

    def stream(self, messages: Sequence[dict], tools: Tools = None, *, prefix: str = "",
               max_new_tokens: int = 256, stop: Sequence[str] = (), top_k: int = 0,
               reuse_cache: bool = False, grammar: str | None = None) -> ReplyStream:
        raise NotImplementedError

    def generate(self, messages: Sequence[dict], tools: Tools = None, **kwargs: Any) -> Generation:
        """Generate a whole reply (greedy). Same arguments as `stream`."""
        return self.stream(messages, tools, **kwargs).run()

    def generate_batch(self, conversations: Sequence[Sequence[dict]], tools: Tools = None, *,
                       max_new_tokens: int = 256) -> list[Generation]:
        """Greedy replies to several conversations at once (see `generate_prompts`)."""
        return self.generate_prompts([self.render(m, tools) for m in conversations], max_new_tokens=max_new_tokens)

    def generate_prompts(self, prompts: Sequence[str], *, max_new_tokens: int = 256,
                         grammars: Sequence[str | None] | None = None) -> list[Generation]:
        """Greedy replies to rendered prompts in one batch, each row held to its grammar if any."""
        raise NotImplementedError(f"{type(self).__name__} does not generate batches")

    def logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        """Log-probability of each token of `continuation` after `prompt` (raw text, no template)."""
        raise NotImplementedError(f"{type(self).__name__} does not score text")
