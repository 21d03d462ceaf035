"""A model behind an inference server, and the llama.cpp server this project starts.

- `client`: `ServerModel`, a `ChatModel` over the OpenAI completions API.
- `llama_python`: llama-cpp-python's server on an offline pack's GGUF file (the `server` extra).
- `logprob_fix`: that server's process, with its log-probability ranking fixed.
- `ports`: a free port, waiting until a server answers, and stopping it.
"""
