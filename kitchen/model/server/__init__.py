"""A model behind an inference server, and the two llama.cpp servers this project starts.

- `client`: `ServerModel`, a `ChatModel` over the OpenAI completions API.
- `dialects`: how the two llama.cpp servers answer the same request differently (the one place).
- `llama_server`: llama.cpp's own `llama-server` on the offline packs, with parallel slots (`make classroom`).
- `build`: that server, built from the pinned llama-cpp-python sdist for this CPU (`make llama-server`).
- `llama_python`: llama-cpp-python's server on an offline pack's GGUF file (the `server` extra).
- `logprob_fix`: that server's process, with its log-probability ranking fixed.
- `ports`: a free port, waiting until a server answers, and stopping it.
"""
