"""The five toy tools of the series: plain Python functions the model can call.

Each tool is a function with type hints and a Google-style docstring; its JSON schema comes from
that docstring (`kitchen.schemas.tool_schema`). Bad arguments raise `ToolError`, whose message is
written for the model to read and act on. The data they use lives in the repository's `data/`.
"""

from kitchen.tools.calculator import calculator
from kitchen.tools.errors import ToolError
from kitchen.tools.files import browse_files
from kitchen.tools.rhymes import search_rhymes
from kitchen.tools.web import fetch_page
from kitchen.tools.words import count_words

TOY_TOOLS = [calculator, search_rhymes, count_words, fetch_page, browse_files]
TOOLS_BY_NAME = {fn.__name__: fn for fn in TOY_TOOLS}

__all__ = ["TOOLS_BY_NAME", "TOY_TOOLS", "ToolError", "browse_files", "calculator", "count_words",
           "fetch_page", "search_rhymes"]
