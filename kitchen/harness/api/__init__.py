"""Chapter 09: the same model behind the APIs learners use next, OpenAI's and Anthropic's.

- `app`: `start_api(model)` and `serve_api(model)` (a `with` block), the server (Starlette on uvicorn, 127.0.0.1) and `ApiServer.turns`.
- `turns`: one turn for either API: render, generate (under chapter 07's grammar for `strict`
  and `tool_choice`), parse, give each call an id (`ChatRequest`, `ApiTurn`, `ApiCall`, `ApiError`).
- `openai_shape`, `anthropic_shape`: each API's request, response, stream and error shapes.
- `converse_shape`: Amazon Bedrock's Converse shape, as data, and `shapes()`: one call, three shapes.
- `request_parts`: what both read alike: tool definitions (checked), message text, stop strings.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.harness.api.app": ["ApiServer", "serve_api", "start_api"],
    "kitchen.harness.api.turns": ["ApiCall", "ApiError", "ApiTurn", "ChatRequest", "run_turn", "stream_turn"],
    "kitchen.harness.api.converse_shape": ["converse_response", "converse_result", "shapes"],
})
