"""The five toy tools as one list (`kitchen.tools.toy`), the list every chapter hands the model."""

from __future__ import annotations

from kitchen.tools.expressions import calculator
from kitchen.tools.files import browse_files
from kitchen.tools.rhymes import search_rhymes
from kitchen.tools.toy import TOOLS_BY_NAME, TOY_TOOLS
from kitchen.tools.web import fetch_page
from kitchen.tools.words import count_words

EXPECTED_NAMES = ["calculator", "search_rhymes", "count_words", "fetch_page", "browse_files"]


def test_the_five_tools_in_order() -> None:
    assert [fn.__name__ for fn in TOY_TOOLS] == EXPECTED_NAMES
    assert list(TOOLS_BY_NAME) == EXPECTED_NAMES
    assert all(TOOLS_BY_NAME[fn.__name__] is fn for fn in TOY_TOOLS)


def test_the_list_holds_each_module_s_own_function_unwrapped() -> None:
    # The schema is read from the function's signature and docstring: a wrapper would hide them.
    assert all(a is b for a, b in zip(TOY_TOOLS, [calculator, search_rhymes, count_words, fetch_page,
                                                  browse_files], strict=True))


def test_a_tool_found_by_name_runs() -> None:
    assert TOOLS_BY_NAME["calculator"](expression="6 * 7") == "42"
    assert TOOLS_BY_NAME["search_rhymes"](query="star", limit=1)[0]["title"] == "Twinkle, Twinkle, Little Star"
