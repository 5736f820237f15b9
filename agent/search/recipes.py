"""Named retrieval recipes (graphiti-style): which retrievers run and how they are fused.

A recipe is a frozen value, so callers can pass a name (``"hybrid_rrf"``) or build
their own ``SearchRecipe``. Every recipe fuses its ranked lists with weighted
Reciprocal Rank Fusion: ``score(d) = sum_r weight_r / (rrf_k + rank_r(d))``
with ranks starting at 1 and ``rrf_k = 60`` (Cormack et al. 2009).

Retrievers:
- ``vector``: the embedding index (oversampled, learner-filtered, exact-scan fallback);
- ``fulltext``: the Lucene full-text index (BM25), learner-scoped;
- ``expand``: 1-hop graph neighbours of the top seeds (DERIVED_FROM, SUMMARIZES, FOLDS, links);
- ``context``: the session/time neighbourhood of the seeds (neighbouring turns);
- ``notes``: Zettelkasten ``:Note`` nodes (reserved; degrades to ``fallback`` when absent);
- ``session``: the sessions that match the query best (by their summaries' full text, or
  by the fused hits they hold), each adding its own turns ranked by similarity (one list
  per session rank, weight / rank; see ``agent.search.sessions``).

- ``sentence``: turn contexts ranked by the cosine of their best sentence (the
  ``:TurnSentence`` index; ``agent.kernel.sentences``): a turn that names a thing in one
  sentence among others ranks by that sentence.
- ``question``: a second full-text pass with the whole question, fused as its own list
  (multi-query fusion: the keyword query finds the content words, the question its
  phrasing; BM25 gives its function words little weight).

``disclosure_weight`` ranks conversational filler lower: a turn context whose turn is not a
first-person statement (a question, a reaction; ``agent.kernel.derive.is_disclosure``,
decided at write time) has its fused score divided by ``1 + disclosure_weight``. Memories
without the flag (notes, summaries, the agent's own inserts) are left as they are.

``keyword_query`` sends only the query's content words to full text and ``stem_prefixes``
also matches their light stems as prefixes (``camp*`` finds "camping"; see
``agent.search.rewrite``). The ``hybrid_keywords*``, ``hybrid_session*``, ``hybrid_stems``,
``hybrid_multi_query``, ``hybrid_disclosure*`` and ``hybrid_sentences*`` recipes were added for
conversational memory (the LoCoMo benchmark, ``bench/locomo``), where each one adds a single
choice to the previous so a results table shows its contribution.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.errors import InvalidInputError

RRF_K = 60
SESSION_SOURCES = ("summaries", "hits")


@dataclass(frozen=True)
class SearchRecipe:
    """Weights of each retriever (0 disables it) and candidate-pool sizing."""

    name: str
    description: str = ""
    vector_weight: float = 1.0
    fulltext_weight: float = 1.0
    expand_weight: float = 0.0
    context_weight: float = 0.0
    notes_weight: float = 0.0
    rrf_k: int = RRF_K
    candidate_factor: int = 3
    """Each retriever returns ``candidate_factor * (page + 1) * page_size`` candidates..."""
    min_candidates: int = 30
    """...but at least this many, so fusion has material to work with."""
    oversample: int = 10
    """The vector index's top-k is global, so ask for this many times more than needed."""
    seeds: int = 10
    """Top fused hits whose neighbours ``expand`` and ``context`` explore."""
    context_window: int = 1
    """Turns on each side of a seed that ``context`` adds (1-3)."""
    fallback: str | None = None
    """Recipe to use when a source this recipe needs (``:Note``) does not exist."""
    keyword_query: bool = False
    """Full text matches the query's content words only (question and stop words dropped)."""
    session_weight: float = 0.0
    """RRF weight of the ``session`` retriever (0 disables it)."""
    session_source: str = "summaries"
    """How ``session`` ranks sessions: ``"summaries"`` (full text) or ``"hits"`` (fused hits vote)."""
    session_top: int = 3
    """Best-matching sessions whose turns ``session`` adds."""
    session_turns: int = 20
    """Turns per session that ``session`` adds, most similar to the query first."""
    stem_prefixes: bool = False
    """Full text also matches the light stem of each content word as a prefix (``camp*``)."""
    question_weight: float = 0.0
    """RRF weight of the ``question`` retriever: full text with the whole question (0 disables it)."""
    activation_weight: float = 0.0
    """How much a memory's decayed activation lifts its fused score (``agent.memory.activation``)."""
    usage_weight: float = 0.0
    """How much a memory's usage count lifts its fused score (``agent.memory.activation``)."""
    disclosure_weight: float = 0.0
    """Turn contexts that are not first-person statements score ``1 / (1 + w)`` of their fused score."""
    sentence_weight: float = 0.0
    """RRF weight of the ``sentence`` retriever: turn contexts by their best sentence (0 disables it)."""

    def __post_init__(self) -> None:
        """Reject weights and sizes that would make a search meaningless."""
        weights = self.weights
        if any(w < 0 for w in weights.values()):
            raise InvalidInputError(f"recipe {self.name!r}: weights must be >= 0")
        if not weights["vector"] and not weights["fulltext"] and not weights["notes"]:
            raise InvalidInputError(
                f"recipe {self.name!r}: needs a primary retriever (vector, fulltext or notes)"
            )
        if self.rrf_k <= 0:
            raise InvalidInputError(f"recipe {self.name!r}: rrf_k must be > 0")
        if not 1 <= self.context_window <= 3:
            raise InvalidInputError(f"recipe {self.name!r}: context_window must be 1-3")
        if self.candidate_factor < 1 or self.min_candidates < 1 or self.oversample < 1:
            raise InvalidInputError(f"recipe {self.name!r}: sizes must be >= 1")
        if self.seeds < 1:
            raise InvalidInputError(f"recipe {self.name!r}: seeds must be >= 1")
        if self.session_source not in SESSION_SOURCES:
            raise InvalidInputError(f"recipe {self.name!r}: session_source must be one of {SESSION_SOURCES}")
        if self.session_top < 1 or self.session_turns < 1:
            raise InvalidInputError(f"recipe {self.name!r}: session sizes must be >= 1")
        if self.activation_weight < 0 or self.usage_weight < 0:
            raise InvalidInputError(f"recipe {self.name!r}: activation and usage weights must be >= 0")
        if self.disclosure_weight < 0:
            raise InvalidInputError(f"recipe {self.name!r}: disclosure_weight must be >= 0")

    @property
    def weights(self) -> dict[str, float]:
        """Retriever name -> RRF weight."""
        return {
            "vector": self.vector_weight,
            "fulltext": self.fulltext_weight,
            "expand": self.expand_weight,
            "context": self.context_weight,
            "notes": self.notes_weight,
            "session": self.session_weight,
            "question": self.question_weight,
            "sentence": self.sentence_weight,
        }

    def candidates(self, page: int, page_size: int) -> int:
        """How many candidates each retriever should return for ``page``."""
        return max(self.min_candidates, self.candidate_factor * (page + 1) * page_size)


VECTOR_ONLY = SearchRecipe(
    "vector_only", "Embedding similarity only.", vector_weight=1.0, fulltext_weight=0.0
)
FULLTEXT_ONLY = SearchRecipe(
    "fulltext_only", "Full-text (BM25) only.", vector_weight=0.0, fulltext_weight=1.0
)
HYBRID_RRF = SearchRecipe("hybrid_rrf", "Vector + full-text fused with RRF (k=60).")
HYBRID_EXPAND = SearchRecipe(
    "hybrid_expand",
    "hybrid_rrf + 1-hop graph expansion (lineage and links between memories).",
    expand_weight=0.5,
)
HYBRID_CONTEXT = SearchRecipe(
    "hybrid_context",
    "hybrid_expand + neighbouring turns of the same session.",
    expand_weight=0.5,
    context_weight=0.5,
)
HYBRID_NOTES = SearchRecipe(
    "hybrid_notes",
    "hybrid_expand + Zettelkasten :Note nodes; degrades to hybrid_expand without notes.",
    expand_weight=0.5,
    notes_weight=1.0,
    fallback="hybrid_expand",
)

HYBRID_KEYWORDS = SearchRecipe(
    "hybrid_keywords",
    "hybrid_rrf, but full text matches the query's content words only (question and stop words dropped).",
    keyword_query=True,
)
HYBRID_KEYWORDS_K10 = SearchRecipe(
    "hybrid_keywords_k10",
    "hybrid_keywords with sharper fusion (rrf_k=10): a top rank in either retriever counts for more.",
    keyword_query=True,
    rrf_k=10,
)
HYBRID_SESSION = SearchRecipe(
    "hybrid_session",
    "hybrid_keywords_k10 + session context: the turns of the 3 sessions whose summaries match best "
    "(full text), ranked by similarity.",
    keyword_query=True,
    rrf_k=10,
    session_weight=0.5,
)
HYBRID_SESSION_HITS = SearchRecipe(
    "hybrid_session_hits",
    "hybrid_session, but sessions are ranked by the fused hits they hold (sum of their 3 best), "
    "not by their summaries.",
    keyword_query=True,
    rrf_k=10,
    session_weight=0.5,
    session_source="hits",
)
HYBRID_SESSION_CONTEXT = SearchRecipe(
    "hybrid_session_context",
    "hybrid_session_hits + the neighbouring turns of the top hits (same session, one on each side).",
    keyword_query=True,
    rrf_k=10,
    session_weight=0.5,
    session_source="hits",
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
HYBRID_DISCLOSURE_LIGHT = replace(
    HYBRID_MULTI_QUERY,
    name="hybrid_disclosure_light",
    description="hybrid_multi_query, but turns that are not first-person statements (questions, "
    "reactions) score 1/1.25 of their fused score.",
    disclosure_weight=0.25,
)
HYBRID_DISCLOSURE = replace(
    HYBRID_MULTI_QUERY,
    name="hybrid_disclosure",
    description="hybrid_multi_query, but turns that are not first-person statements (questions, "
    "reactions) score 1/1.5 of their fused score.",
    disclosure_weight=0.5,
)
HYBRID_DISCLOSURE_STRONG = replace(
    HYBRID_MULTI_QUERY,
    name="hybrid_disclosure_strong",
    description="hybrid_multi_query, but turns that are not first-person statements (questions, "
    "reactions) score half their fused score.",
    disclosure_weight=1.0,
)
HYBRID_SENTENCES_LIGHT = replace(
    HYBRID_DISCLOSURE,
    name="hybrid_sentences_light",
    description="hybrid_disclosure + turn contexts ranked by their best sentence, fused as its own "
    "list (weight 0.25).",
    sentence_weight=0.25,
)
HYBRID_SENTENCES = replace(
    HYBRID_SENTENCES_LIGHT,
    name="hybrid_sentences",
    description="hybrid_disclosure + turn contexts ranked by their best sentence, fused as its own "
    "list (weight 0.35).",
    sentence_weight=0.35,
)
HYBRID_SENTENCES_STRONG = replace(
    HYBRID_SENTENCES_LIGHT,
    name="hybrid_sentences_strong",
    description="hybrid_disclosure + turn contexts ranked by their best sentence, fused as its own "
    "list (weight 0.5).",
    sentence_weight=0.5,
)
COGNITIVE = SearchRecipe(
    "cognitive",
    "Cognitive memory (facts, procedures): hybrid_keywords_k10, then blended with activation and "
    "usage (agent.memory.activation.blend_score); near-ties re-order, relevance dominates.",
    keyword_query=True,
    rrf_k=10,
    activation_weight=0.15,
    usage_weight=0.15,
)
COGNITIVE_PROCEDURES = replace(
    COGNITIVE,
    name="cognitive_procedures",
    description="cognitive with usage weighted 0.5: procedures are practised, so how often the "
    "learner came back to one is the signal they rank by (agent.memory.procedures).",
    usage_weight=0.5,
)

DEFAULT_RECIPE = HYBRID_SENTENCES.name
"""The agent's conversation and archival search, and consultation's: the LoCoMo
leave-one-conversation-out choice among presets whose search p95 is within 150 ms
(``bench/locomo/loo.py``; docs/evaluation/locomo.md, "Latest results": it won every fold of
two runs, and a ``hybrid_sentences*`` recipe won every fold of two more)."""

RECIPES: dict[str, SearchRecipe] = {
    r.name: r
    for r in (
        VECTOR_ONLY,
        FULLTEXT_ONLY,
        HYBRID_RRF,
        HYBRID_EXPAND,
        HYBRID_CONTEXT,
        HYBRID_NOTES,
        HYBRID_KEYWORDS,
        HYBRID_KEYWORDS_K10,
        HYBRID_SESSION,
        HYBRID_SESSION_HITS,
        HYBRID_SESSION_CONTEXT,
        HYBRID_STEMS,
        HYBRID_MULTI_QUERY,
        HYBRID_DISCLOSURE_LIGHT,
        HYBRID_DISCLOSURE,
        HYBRID_DISCLOSURE_STRONG,
        HYBRID_SENTENCES_LIGHT,
        HYBRID_SENTENCES,
        HYBRID_SENTENCES_STRONG,
        COGNITIVE,
        COGNITIVE_PROCEDURES,
    )
}


def get_recipe(recipe: str | SearchRecipe) -> SearchRecipe:
    """Return the named recipe (or ``recipe`` itself); unknown names list the valid ones."""
    if isinstance(recipe, SearchRecipe):
        return recipe
    found = RECIPES.get(recipe) if isinstance(recipe, str) else None
    if found is None:
        raise InvalidInputError(
            f"unknown search recipe {recipe!r}; valid recipes: {', '.join(sorted(RECIPES))}"
        )
    return found
