"""Calls valid by construction (chapter 07): grammars from the tool schemas, and their mask.

- `calls`: call grammars (Lark, in llguidance's dialect) for each `tool_choice`.
- `mask`: `Constraint`, a grammar's mask over the model's next token (llguidance).
- `gbnf`: the same grammars in GBNF, the grammar language of llama.cpp's server.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.grammar.calls": ["GrammarError", "auto_trigger", "call_grammar", "grammar_error"],
    "kitchen.grammar.mask": ["Constraint"],
})
