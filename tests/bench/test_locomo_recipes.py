"""The LoCoMo ladder (bench.locomo.recipes): each step adds one choice; it ends in the product default."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.errors import InvalidInputError
from agent.search.recipes import DEFAULT_RECIPE, RECIPES, SearchRecipe
from bench.locomo.recipes import LADDER, bench_recipe
from bench.locomo.retrieval import PRESETS


def test_the_ladder_lives_in_bench_and_resolves_every_preset() -> None:
    assert not set(LADDER) & set(RECIPES)  # the product's table holds no ladder step
    assert bench_recipe(DEFAULT_RECIPE) is RECIPES[DEFAULT_RECIPE]
    for preset in PRESETS:
        assert bench_recipe(preset.recipe).name == preset.recipe
    with pytest.raises(InvalidInputError) as info:
        bench_recipe("hybrid_notes")
    assert "hybrid_multi_query" in str(info.value) and "hybrid_sentences" in str(info.value)


def test_session_recipes_are_valid_and_validated() -> None:
    best = bench_recipe("hybrid_session_context")
    assert best.keyword_query and best.rrf_k == 10
    assert best.weights["session"] > 0 and best.weights["context"] > 0
    assert replace(best, name="x", description="", context_weight=0.0) == replace(
        bench_recipe("hybrid_session_hits"), name="x", description=""
    )


def test_multi_query_recipes_add_one_choice_each() -> None:
    context, stems, multi = (
        bench_recipe(n) for n in ("hybrid_session_context", "hybrid_stems", "hybrid_multi_query")
    )
    assert not context.stem_prefixes and stems.stem_prefixes and multi.stem_prefixes
    assert context.weights["question"] == stems.weights["question"] == 0 < multi.weights["question"]
    assert replace(multi, name="x", description="", question_weight=0.0) == replace(
        stems, name="x", description=""
    )
    assert replace(stems, name="x", description="", stem_prefixes=False) == replace(
        context, name="x", description=""
    )
    with pytest.raises(InvalidInputError):
        SearchRecipe("negative", question_weight=-0.5)


def test_disclosure_recipes_add_one_choice_to_multi_query() -> None:
    multi = bench_recipe("hybrid_multi_query")
    weights = [
        bench_recipe(n).disclosure_weight
        for n in ("hybrid_disclosure_light", "hybrid_disclosure", "hybrid_disclosure_strong")
    ]
    assert multi.disclosure_weight == 0 and weights == [0.25, 0.5, 1.0]
    for name in ("hybrid_disclosure_light", "hybrid_disclosure", "hybrid_disclosure_strong"):
        assert replace(bench_recipe(name), name="x", description="", disclosure_weight=0.0) == replace(
            multi, name="x", description=""
        )
    with pytest.raises(InvalidInputError):
        SearchRecipe("negative", disclosure_weight=-0.5)


def test_sentence_recipes_add_one_choice_to_the_disclosure_recipe() -> None:
    base = bench_recipe("hybrid_disclosure")
    names = ("hybrid_sentences_light", "hybrid_sentences", "hybrid_sentences_strong")
    assert base.sentence_weight == 0 and base.weights["sentence"] == 0
    assert [bench_recipe(n).weights["sentence"] for n in names] == [0.25, 0.35, 0.5]
    for name in names:
        assert replace(bench_recipe(name), name="x", description="", sentence_weight=0.0) == replace(
            base, name="x", description=""
        )
    with pytest.raises(InvalidInputError):
        SearchRecipe("negative", sentence_weight=-0.5)
