"""A chat model behind one interface, and which one runs.

- `interface`: `ChatModel`, `ReplyStream`, `ModelInfo` and the chat-template base every model shares
  (no torch); `replies`: a reply's tokens, candidates and the finished `Generation`.
- `generation`: the greedy decode loop, token by token, with a KV cache (chapters 01, 03);
  `live`: a transformers model running here.
- `selection`: which tier and source run, and why; `weights`: pack and hub weights loaded and cached;
  `packs`: the offline model packs; `tokenizer`: the tokenizer in `data/`, for models without weights.
- `load`: `load_model()`, the one call a notebook makes, and what it announces.
- `scripted`: fixed replies, to show each path of the harness (03, 05).
- `engines/`: the CPU and the engine settings (bfloat16, float32 on oneDNN, int8, int8-decode).
- `replay/`: recorded runs: the file format, the recorder and the player.
- `server/`: a model behind an inference server, and the llama.cpp server this project starts.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.model.load": ["load_model"],
    "kitchen.model.scripted": ["ScriptedModel"],
    "kitchen.model.interface": ["ChatModel", "ModelInfo", "ReplyStream"],
    "kitchen.model.replies": ["Generation", "Token"],
    "kitchen.model.replay.player": ["ReplayModel"],
    "kitchen.model.server.llama_server": ["llama_cpp_server"],
})
