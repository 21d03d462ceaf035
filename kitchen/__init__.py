"""LLM Kitchen · Tools: the helper package behind the notebooks.

Plumbing lives here (loading models, generation, tools, parsing, the harness, MCP, widgets,
plots); the ideas each chapter teaches are typed out in the notebooks themselves.
"""

__version__ = "0.1.0"
