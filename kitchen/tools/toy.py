"""The five toy tools as one list, the list every chapter hands the model.

>>> [fn.__name__ for fn in TOY_TOOLS]
['calculator', 'search_rhymes', 'count_words', 'fetch_page', 'browse_files']
>>> TOOLS_BY_NAME["calculator"] is calculator
True
"""

from __future__ import annotations

from kitchen.tools.expressions import calculator
from kitchen.tools.files import browse_files
from kitchen.tools.rhymes import search_rhymes
from kitchen.tools.web import fetch_page
from kitchen.tools.words import count_words

TOY_TOOLS = [calculator, search_rhymes, count_words, fetch_page, browse_files]
TOOLS_BY_NAME = {fn.__name__: fn for fn in TOY_TOOLS}
