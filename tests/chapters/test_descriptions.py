"""Chapter 02's description experiment: the variants it compares and its summary."""

import json

from kitchen.chapters.descriptions import (EXAMPLE_PARAMETERS, count_words_schema, description_tasks, summarize_descriptions,
                                  variant_schemas)


def test_the_vague_variant_replaces_every_description_and_keeps_the_names():
    precise, vague = variant_schemas("precise"), variant_schemas("vague")
    assert [s["function"]["name"] for s in precise] == [s["function"]["name"] for s in vague]
    texts = description_tasks()["vague"]
    for p, v in zip(precise, vague):
        name = v["function"]["name"]
        assert v["function"]["description"] == texts[name]["description"] != p["function"]["description"]
        for param, text in texts[name]["parameters"].items():
            assert v["function"]["parameters"]["properties"][param]["description"] == text
    assert variant_schemas("precise") == precise  # the precise schemas were not changed in place


def test_count_words_with_examples_gives_the_old_descriptions():
    old = count_words_schema(True)["function"]["parameters"]["properties"]
    assert {p: old[p]["description"] for p in EXAMPLE_PARAMETERS} == EXAMPLE_PARAMETERS
    assert "the cat sat" not in json.dumps(count_words_schema(False))


def test_summarize_counts_right_wrong_and_no_call():
    rows = [{"variant": "vague", "right": True, "called": "calculator"},
            {"variant": "vague", "right": False, "called": "count_words"},
            {"variant": "vague", "right": False, "called": None},
            {"variant": "precise", "right": True, "called": "calculator"}]
    out = summarize_descriptions(rows)
    assert dict(out["vague"]) == {"requests": 3, "right tool": 1, "wrong tool": 1, "no call": 1}
    assert dict(out["precise"]) == {"requests": 1, "right tool": 1}
