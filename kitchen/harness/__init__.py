"""The harness: the loop that turns a model's text into tool calls and feeds the results back.

- `loop`: `Harness` and `run_harness`, with `tool_choice` (chapters 01, 03–07).
- `toolbox`: the one tool policy: each call checked before it runs; `refusals`: every refusal's words.
- `protocols`: native and prompt-based tool calling (03, 04); `signatures`: schemas as prompt text (04).
- `prompts`: a rendered prompt's parts and what each tool costs (02).
- `parsing/`: the plain parse chapter 04 types out (`basic`) and the robust parser the loop uses.
- `api/`: the same model behind OpenAI's and Anthropic's APIs, for their SDKs (09).
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.harness.loop": ["Event", "Harness", "Step", "Trace", "run_harness"],
    "kitchen.harness.toolbox": ["LocalToolbox", "ToolResult", "Toolbox"],
    "kitchen.harness.protocols": ["ANSWER_NOTE", "NATIVE", "PROTOCOLS", "CallTagProtocol", "FencedJSONProtocol", "NativeProtocol", "PythonCallProtocol"],
    "kitchen.harness.prompts": ["prompt_parts", "tool_costs", "tools_block"],
    "kitchen.harness.parsing.robust": ["parse_tool_calls"],
    "kitchen.harness.parsing.results": ["FORMATS", "NATIVE_FORMATS", "ParseError", "ParseResult", "ToolCall"],
    "kitchen.harness.api.app": ["serve_api", "start_api"],
    "kitchen.harness.api.converse_shape": ["converse_result", "shapes"],
})
