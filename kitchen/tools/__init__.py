"""The five toy tools of the series: plain Python functions the model can call, and their schemas.

Each tool is a function with type hints and a Google-style docstring; its JSON schema comes from
that docstring (`schemas.tool_schema`). Bad arguments raise `ToolError` (`errors`), whose message
is written for the model to read and act on. The data they use lives in the repository's `data/`.

- `expressions`: `calculator`, arithmetic expressions evaluated safely.
- `rhymes`, `words`, `web`, `files`: `search_rhymes`, `count_words`, `fetch_page`, `browse_files`.
- `toy`: the five as one list, `TOY_TOOLS`.
- `schemas`: tool schemas from Python functions, and their chat-template and MCP views (02).
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.tools.toy": ["TOOLS_BY_NAME", "TOY_TOOLS"],
    "kitchen.tools.expressions": ["calculator"],
    "kitchen.tools.rhymes": ["search_rhymes"],
    "kitchen.tools.words": ["count_words"],
    "kitchen.tools.web": ["fetch_page"],
    "kitchen.tools.files": ["browse_files"],
    "kitchen.tools.errors": ["ToolError"],
    "kitchen.tools.schemas": ["Injected", "SchemaError", "from_mcp", "to_mcp", "tool_schema"],
})
