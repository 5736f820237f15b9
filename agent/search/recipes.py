"""Named retrieval recipes (graphiti-style): which retrievers run and how they are fused.

A recipe is a frozen value, so callers can pass a name (``"hybrid_sentences"``) or build
their own ``SearchRecipe``. Every recipe fuses its ranked lists with weighted
Reciprocal Rank Fusion: ``score(d) = sum_r weight_r / (rrf_k + rank_r(d))``
with ranks starting at 1 and ``rrf_k = 60`` (Cormack et al. 2009).

Retrievers:
- ``vector``: the embedding index (oversampled, learner-filtered, exact-scan fallback);
- ``fulltext``: the Lucene full-text index (BM25), learner-scoped;
- ``context``: the session/time neighbourhood of the seeds (neighbouring turns);
- ``session``: the sessions that hold the best fused hits, each adding its own turns ranked
  by similarity (one list per session rank, weight / rank; see ``agent.search.sessions``);
- ``sentence``: turn contexts ranked by the cosine of their best sentence (the
  ``:TurnSentence`` index; ``agent.kernel.sentences``): a turn that names a thing in one
  sentence among others ranks by that sentence;
- ``question``: a second full-text pass with the whole question, fused as its own list
  (multi-query fusion: the keyword query finds the content words, the question its
  phrasing; BM25 gives its function words little weight).

``disclosure_weight`` ranks conversational filler lower: a turn context whose turn is not a
first-person statement (decided at write time) has its fused score divided by
``1 + disclosure_weight``. ``keyword_query`` and ``stem_prefixes`` rewrite what full text
is sent (``agent.search.rewrite``).

The table holds the default (``hybrid_sentences``), the cognitive recipes and plain
baselines; the LoCoMo ladder that led to the default lives in ``bench/locomo/recipes.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.errors import InvalidInputError

RRF_K = 60


@dataclass(frozen=True)
class SearchRecipe:
    """Weights of each retriever (0 disables it) and candidate-pool sizing."""

    name: str
    description: str = ""
    vector_weight: float = 1.0
    fulltext_weight: float = 1.0
    context_weight: float = 0.0
    rrf_k: int = RRF_K
    candidate_factor: int = 3
    """Each retriever returns ``candidate_factor * (page + 1) * page_size`` candidates..."""
    min_candidates: int = 30
    """...but at least this many, so fusion has material to work with."""
    oversample: int = 10
    """The vector index's top-k is global, so ask for this many times more than needed."""
    seeds: int = 10
    """Top fused hits whose neighbours ``context`` explores."""
    context_window: int = 1
    """Turns on each side of a seed that ``context`` adds (1-3)."""
    keyword_query: bool = False
    """Full text matches the query's content words only (question and stop words dropped)."""
    session_weight: float = 0.0
    """RRF weight of the ``session`` retriever (0 disables it)."""
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
        if not weights["vector"] and not weights["fulltext"]:
            raise InvalidInputError(f"recipe {self.name!r}: needs a primary retriever (vector or fulltext)")
        if self.rrf_k <= 0:
            raise InvalidInputError(f"recipe {self.name!r}: rrf_k must be > 0")
        if not 1 <= self.context_window <= 3:
            raise InvalidInputError(f"recipe {self.name!r}: context_window must be 1-3")
        if self.candidate_factor < 1 or self.min_candidates < 1 or self.oversample < 1:
            raise InvalidInputError(f"recipe {self.name!r}: sizes must be >= 1")
        if self.seeds < 1:
            raise InvalidInputError(f"recipe {self.name!r}: seeds must be >= 1")
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
            "context": self.context_weight,
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
HYBRID_SENTENCES = SearchRecipe(
    "hybrid_sentences",
    "Conversational memory: vector + full text of the query's content words and their light stems "
    "(camp* finds camping) + the whole question in full text (weight 0.5), fused with RRF (k=10); the "
    "turns of the 3 sessions holding the best hits and the neighbouring turns of the top hits (weight "
    "0.5 each); turn contexts ranked by their best sentence (weight 0.35); turns that are not "
    "first-person statements score 1/1.5 of their fused score.",
    keyword_query=True,
    rrf_k=10,
    session_weight=0.5,
    context_weight=0.5,
    stem_prefixes=True,
    question_weight=0.5,
    disclosure_weight=0.5,
    sentence_weight=0.35,
)
COGNITIVE = SearchRecipe(
    "cognitive",
    "Cognitive memory (facts, procedures): vector + full text of the query's content words fused "
    "with RRF (k=10), then blended with activation and usage (agent.memory.activation.blend_score); "
    "near-ties re-order, relevance dominates.",
    keyword_query=True,
    rrf_k=10,
    activation_weight=0.15,
    usage_weight=0.15,
)
COGNITIVE_PROCEDURES = replace(
    COGNITIVE,
    name="cognitive_procedures",
    description="cognitive with usage weighted 0.5 and light stems as prefixes: procedures are "
    "practised, so how often the learner came back to one is the signal they rank by "
    "(agent.memory.procedures).",
    usage_weight=0.5,
    # a learner names a task in another form than they told it ("how do I do a release?" for "I'm
    # the one doing releases"), and the full-text analyzer does not stem
    stem_prefixes=True,
)

DEFAULT_RECIPE = HYBRID_SENTENCES.name
"""The one default: the agent's conversation and archival search, consultation's, and the
stores' when a caller names none. The LoCoMo leave-one-conversation-out choice among presets
whose search p95 is within 150 ms (``bench/locomo/loo.py``; docs/evaluation/locomo.md)."""

RECIPES: dict[str, SearchRecipe] = {
    r.name: r
    for r in (VECTOR_ONLY, FULLTEXT_ONLY, HYBRID_RRF, HYBRID_SENTENCES, COGNITIVE, COGNITIVE_PROCEDURES)
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
