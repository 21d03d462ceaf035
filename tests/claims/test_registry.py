"""The registry of the chapters' claims: every chapter module is imported and registers claims of its
own chapter, each with an id, a tier, the settings it was measured on and a run; and every chapter's
claims are run by that chapter's file here (test_chNN.py)."""

from __future__ import annotations

from pathlib import Path

from kitchen.claims.core import FAMILIES, REPLAYED
from kitchen.claims.registry import CHAPTERS, CLAIMS, by_chapter
from kitchen.model.selection import TIERS

KITCHEN_CLAIMS = Path(__file__).resolve().parents[2] / "kitchen" / "claims"


def test_there_are_at_least_fifteen_claims_across_eight_chapters():
    assert len(CLAIMS) >= 15
    assert {c.chapter for c in CLAIMS.values()} == {"01", "02", "03", "04", "05", "06", "07", "09"}


def test_the_registry_imports_every_chapter_module_in_order():
    files = sorted(f"kitchen.claims.{p.stem}" for p in KITCHEN_CLAIMS.glob("ch*.py"))
    assert [m.__name__ for m in CHAPTERS] == files


def test_each_chapter_module_registers_claims_of_its_own_chapter():
    for module in CHAPTERS:
        chapter = module.__name__.rpartition(".")[2].removeprefix("ch")
        claims = by_chapter(chapter)
        assert claims, f"{module.__name__} registers no claim"
        assert {c.check.__module__ for c in claims} == {module.__name__}
    assert sum(len(by_chapter(m.__name__[-2:])) for m in CHAPTERS) == len(CLAIMS)


def test_each_id_is_its_key_and_starts_with_its_chapter():
    for key, c in CLAIMS.items():
        assert c.id == key
        chapter, dot, name = key.partition(".")
        assert (chapter, dot) == (c.chapter, ".") and name, key


def test_each_claim_says_what_it_is_about_and_where_it_was_measured():
    for c in CLAIMS.values():
        assert c.text and c.tier in TIERS, c.id
        assert c.source in (None, "replay"), c.id
        assert c.measured_on and all(len(s) == 4 and all(isinstance(x, str) and x for x in s)
                                     for s in c.measured_on), c.id
        # each setting names the family it was computed on (a replay computes nothing)
        assert all(family in (*FAMILIES, REPLAYED) and (family == REPLAYED) == (source == "replay")
                   for _, source, _, family in c.measured_on), c.id
        assert callable(c.run) and callable(c.check), c.id


def test_a_claim_shown_from_a_recording_was_measured_on_that_recording():
    recorded = [c for c in CLAIMS.values() if c.source == "replay"]
    assert recorded, "no claim is shown from a recording"
    for c in recorded:
        assert any(source == "replay" for _, source, _, _ in c.measured_on), c.id


def test_every_chapter_with_claims_has_its_test_file_here():
    here = Path(__file__).parent
    assert all((here / f"test_ch{c.chapter}.py").is_file() for c in CLAIMS.values())
