"""Recipes, RRF fusion maths and keyword scoring: no services."""

from __future__ import annotations

import math

import pytest

from agent.errors import InvalidInputError
from agent.search.recipes import DEFAULT_RECIPE, HYBRID_SENTENCES, RECIPES, SearchRecipe, get_recipe
from agent.search.results import SearchHit, SearchPage, demote, keyword_rank, rrf_fuse


def test_rrf_single_list_uses_k_plus_rank() -> None:
    fused = rrf_fuse({"vector": [("a", 0.9), ("b", 0.5)]}, {"vector": 1.0})
    assert [f.id for f in fused] == ["a", "b"]
    assert fused[0].score == pytest.approx(1 / 61)
    assert fused[1].score == pytest.approx(1 / 62)
    assert fused[0].scores == {"vector": 0.9, "rrf": pytest.approx(1 / 61)}


def test_rrf_sums_weighted_contributions_across_lists() -> None:
    ranked = {
        "vector": [("a", 0.9), ("b", 0.8), ("c", 0.7)],
        "fulltext": [("c", 5.0), ("a", 3.0)],
    }
    fused = {f.id: f for f in rrf_fuse(ranked, {"vector": 1.0, "fulltext": 2.0})}
    assert fused["a"].score == pytest.approx(1 / 61 + 2 / 62)
    assert fused["b"].score == pytest.approx(1 / 62)
    assert fused["c"].score == pytest.approx(1 / 63 + 2 / 61)
    # c is second in vector but first (double weight) in full text, so it wins.
    assert [f.id for f in rrf_fuse(ranked, {"vector": 1.0, "fulltext": 2.0})] == ["c", "a", "b"]


def test_rrf_ignores_zero_weight_lists_and_duplicate_ids() -> None:
    ranked = {"vector": [("a", 1.0), ("a", 0.5), ("b", 0.4)], "expand": [("z", 1.0)]}
    fused = rrf_fuse(ranked, {"vector": 1.0, "expand": 0.0})
    assert [f.id for f in fused] == ["a", "b"]
    assert fused[1].score == pytest.approx(1 / 63)  # b keeps its own rank (3)


def test_rrf_custom_k_and_stable_ties() -> None:
    fused = rrf_fuse({"x": [("b", 1.0)], "y": [("a", 1.0)]}, {"x": 1.0, "y": 1.0}, k=1)
    assert [f.id for f in fused] == ["a", "b"]  # equal scores and ranks: by id
    assert fused[0].score == pytest.approx(0.5)


def test_demote_divides_the_flagged_hits_and_reorders() -> None:
    ranked = {"vector": [("question", 0.9), ("statement", 0.8), ("note", 0.7)]}
    fused = rrf_fuse(ranked, {"vector": 1.0}, k=10)
    assert [f.id for f in fused] == ["question", "statement", "note"]
    out = demote(fused, {"question"}, 0.5)
    assert [f.id for f in out] == ["statement", "note", "question"]  # 1/11/1.5 < 1/13
    by_id = {f.id: f for f in out}
    assert math.isclose(by_id["question"].score, (1 / 11) / 1.5)
    assert by_id["question"].scores["disclosure"] == pytest.approx(1 / 1.5)
    assert by_id["question"].scores["rrf"] == pytest.approx(1 / 11)  # the fused score is kept
    assert by_id["statement"] == fused[1]  # unflagged hits are untouched
    # Weight 0 or nothing flagged: the same ranking.
    assert demote(fused, {"question"}, 0.0) == fused
    assert demote(fused, set(), 0.5) == fused


def test_recipes_are_named_and_lookup_lists_valid_names() -> None:
    assert set(RECIPES) == {
        "vector_only",
        "fulltext_only",
        "hybrid_rrf",
        "hybrid_sentences",
        "cognitive",
        "cognitive_procedures",
    }
    assert RECIPES[DEFAULT_RECIPE] is HYBRID_SENTENCES
    assert get_recipe("hybrid_rrf").rrf_k == 60
    assert get_recipe(RECIPES["vector_only"]) is RECIPES["vector_only"]
    with pytest.raises(InvalidInputError) as info:
        get_recipe("bm25_magic")
    for name in RECIPES:
        assert name in str(info.value)


def test_recipe_shapes() -> None:
    assert RECIPES["vector_only"].weights["fulltext"] == 0
    assert RECIPES["fulltext_only"].weights["vector"] == 0
    assert RECIPES["hybrid_sentences"].weights["context"] > 0
    assert RECIPES["hybrid_rrf"].candidates(0, 5) == 30
    assert RECIPES["hybrid_rrf"].candidates(9, 5) == 150


def test_invalid_recipes_are_rejected() -> None:
    with pytest.raises(InvalidInputError):
        SearchRecipe("nothing", vector_weight=0, fulltext_weight=0)
    with pytest.raises(InvalidInputError):
        SearchRecipe("negative", vector_weight=-1)
    with pytest.raises(InvalidInputError):
        SearchRecipe("wide", context_window=9)
    with pytest.raises(InvalidInputError):
        get_recipe(42)  # type: ignore[arg-type]


def test_keyword_rank_prefers_coverage_then_recency() -> None:
    docs = [
        {"id": "new", "text": "joins"},
        {"id": "both", "text": "SQL joins, joins again"},
        {"id": "old", "text": "sql JOINS"},
        {"id": "none", "text": "python"},
    ]
    ranked = keyword_rank("sql joins", docs, text_key="text")
    assert [f.id for f in ranked] == ["both", "old", "new"]
    assert ranked[0].score == pytest.approx(2.1)
    assert [f.id for f in keyword_rank("  ", docs, text_key="text")] == [
        "new",
        "both",
        "old",
        "none",
    ]


def test_results_serialise_to_json_ready_dicts() -> None:
    hit = SearchHit("m1", "text", 0.5, "2024-01-01T00:00:00+00:00", "memory", ["sql"], {"rrf": 0.5})
    page = SearchPage([hit], 0, 5, "hybrid_rrf", degraded=True)
    data = page.to_dict()
    assert data["degraded"] is True
    assert data["results"][0]["tags"] == ["sql"]
    assert math.isclose(data["results"][0]["score"], 0.5)
