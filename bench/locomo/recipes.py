"""The LoCoMo ablation ladder: the search recipes that led to the product's default.

Each step adds a single choice to the one before, so the results table shows each choice's
contribution. The ladder ends in the product's default, ``hybrid_sentences``
(``agent.search.recipes.HYBRID_SENTENCES``); the light and strong variants around it are
the weights it was chosen from. The stores take a ``SearchRecipe`` as readily as a name, so
the benchmark passes these values in and the product's table keeps only product options.
"""

from __future__ import annotations

from dataclasses import replace

from agent.errors import InvalidInputError
from agent.search.recipes import RECIPES, SearchRecipe

HYBRID_KEYWORDS = SearchRecipe(
    "hybrid_keywords",
    "hybrid_rrf, but full text matches the query's content words only (question and stop words dropped).",
    keyword_query=True,
)
HYBRID_KEYWORDS_K10 = replace(
    HYBRID_KEYWORDS,
    name="hybrid_keywords_k10",
    description="hybrid_keywords with sharper fusion (rrf_k=10): a top rank in either retriever counts "
    "for more.",
    rrf_k=10,
)
HYBRID_SESSION_HITS = replace(
    HYBRID_KEYWORDS_K10,
    name="hybrid_session_hits",
    description="hybrid_keywords_k10 + session context: the turns of the 3 sessions holding the best "
    "fused hits (sum of their 3 best), ranked by similarity.",
    session_weight=0.5,
)
HYBRID_SESSION_CONTEXT = replace(
    HYBRID_SESSION_HITS,
    name="hybrid_session_context",
    description="hybrid_session_hits + the neighbouring turns of the top hits (same session, one on "
    "each side).",
    context_weight=0.5,
)
HYBRID_STEMS = replace(
    HYBRID_SESSION_CONTEXT,
    name="hybrid_stems",
    description="hybrid_session_context, but full text also matches each content word's light stem "
    "as a prefix (camp* finds camping, camped).",
    stem_prefixes=True,
)
HYBRID_MULTI_QUERY = replace(
    HYBRID_STEMS,
    name="hybrid_multi_query",
    description="hybrid_stems + a second full-text pass with the whole question, fused as its own "
    "list (weight 0.5).",
    question_weight=0.5,
)


def _disclosure(name: str, weight: float, share: str) -> SearchRecipe:
    return replace(
        HYBRID_MULTI_QUERY,
        name=name,
        description="hybrid_multi_query, but turns that are not first-person statements (questions, "
        f"reactions) score {share} of their fused score.",
        disclosure_weight=weight,
    )


HYBRID_DISCLOSURE_LIGHT = _disclosure("hybrid_disclosure_light", 0.25, "1/1.25")
HYBRID_DISCLOSURE = _disclosure("hybrid_disclosure", 0.5, "1/1.5")
HYBRID_DISCLOSURE_STRONG = _disclosure("hybrid_disclosure_strong", 1.0, "half")


def _sentences(name: str, weight: float) -> SearchRecipe:
    return replace(
        HYBRID_DISCLOSURE,
        name=name,
        description="hybrid_disclosure + turn contexts ranked by their best sentence, fused as its own "
        f"list (weight {weight}).",
        sentence_weight=weight,
    )


HYBRID_SENTENCES_LIGHT = _sentences("hybrid_sentences_light", 0.25)
HYBRID_SENTENCES_STRONG = _sentences("hybrid_sentences_strong", 0.5)
HYBRID_SENTENCES = RECIPES["hybrid_sentences"]
"""The product's default, the ladder's last step (``_sentences("hybrid_sentences", 0.35)``)."""

LADDER: dict[str, SearchRecipe] = {
    r.name: r
    for r in (
        HYBRID_KEYWORDS,
        HYBRID_KEYWORDS_K10,
        HYBRID_SESSION_HITS,
        HYBRID_SESSION_CONTEXT,
        HYBRID_STEMS,
        HYBRID_MULTI_QUERY,
        HYBRID_DISCLOSURE_LIGHT,
        HYBRID_DISCLOSURE,
        HYBRID_DISCLOSURE_STRONG,
        HYBRID_SENTENCES_LIGHT,
        HYBRID_SENTENCES_STRONG,
    )
}
"""The ladder's own steps (the product's recipes are looked up in ``agent.search.recipes``)."""


def bench_recipe(name: str) -> SearchRecipe:
    """The ladder step or product recipe called ``name``; unknown names list the valid ones."""
    found = LADDER.get(name) or RECIPES.get(name)
    if found is None:
        valid = ", ".join(sorted({*LADDER, *RECIPES}))
        raise InvalidInputError(f"unknown search recipe {name!r}; valid recipes: {valid}")
    return found
