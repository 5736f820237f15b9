"""The ``session`` retriever: the sessions that match the query best lend weight to their turns.

Hierarchical retrieval over conversational memory, in two steps:

1. Rank the learner's sessions, by ``recipe.session_source``:
   - ``"summaries"``: full text over the learner's ``:SessionSummary`` nodes (several
     summaries of one session count as that session's best);
   - ``"hits"``: the fused vector/full-text hits vote for their sessions; a session
     scores the sum of its ``VOTES`` best fused scores among the top ``VOTE_DEPTH`` hits.
2. Each of the top ``recipe.session_top`` sessions contributes its own turns
   (``:Memory`` of that session that are not summaries, or its ``:Message`` nodes),
   ranked by cosine similarity to the query, at most ``recipe.session_turns``.

``hybrid_search`` fuses one list per session rank with weight ``session_weight / rank``,
so the best session counts most. Every query filters on ``learner_id``; labels are our
own constants, never user input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import neo4j

from agent.graphdb.schema import learner_key
from agent.graphdb.store import fetch
from agent.search.lucene import LuceneScope
from agent.search.queries import SESSION_MEMORIES, SESSION_MESSAGES, TOP_SESSIONS
from agent.search.recipes import SearchRecipe
from agent.search.termstats import weighted_query

MAX_SUMMARY_HITS = 2000
SUMMARY_FIELD = "text"
"""The summaries' property in their full-text index."""
VOTE_DEPTH = 50
VOTES = 3


def vote_sessions(
    fused: Sequence[tuple[str, float]], session_of: Mapping[str, str], top: int, *, votes: int = VOTES
) -> list[str]:
    """Sessions ranked by the sum of their ``votes`` best scores among ``fused`` (best first).

    Hits without a session (notes) do not vote; ties keep the session seen first.
    """
    scores: dict[str, list[float]] = {}
    for doc_id, score in fused:
        session = session_of.get(doc_id)
        if session is not None:
            scores.setdefault(session, []).append(score)
    totals = {s: sum(sorted(v, reverse=True)[:votes]) for s, v in scores.items()}
    return sorted(totals, key=lambda s: -totals[s])[:top]


async def session_lists(
    tx: neo4j.AsyncTransaction,
    recipe: SearchRecipe,
    *,
    label: str,
    learner_id: str,
    embedding: list[float],
    kinds: list[str] | None,
    summary_index: str,
    summary_text: str,
    summary_weights: Mapping[str, float] | None,
    fused: Sequence[tuple[str, float]],
    session_of: Mapping[str, str],
    demoted: set[str] | None = None,
) -> list[list[tuple[str, float]]]:
    """One ranked ``(id, cosine)`` list per top session, best session first.

    ``session_of`` maps the first-stage hits of ``label`` to their session (the first-stage
    queries return it, so the votes cost no round trip); other hits (notes) do not vote.
    The ids of the turns read whose ``disclosure`` flag is false are added to ``demoted``.
    Summaries are matched on ``summary_text``, each term weighted by the learner's own
    memories: ``summary_weights`` when the caller counted them in ``summary_index``, else here.
    """
    if recipe.session_source == "summaries":
        scope = LuceneScope((SUMMARY_FIELD,), learner_key(learner_id))
        words = scope.term_clauses(summary_text)
        if summary_weights is None:
            lucene = await weighted_query(
                tx, scope, words, index=summary_index, label="Memory", learner_id=learner_id
            )
        else:
            lucene = scope.query(words, summary_weights)
        if lucene is None:
            return []
        rows = await fetch(
            tx,
            TOP_SESSIONS,
            index=summary_index,
            lucene=lucene,
            k=MAX_SUMMARY_HITS,
            learner_id=learner_id,
            sessions=recipe.session_top,
        )
        sessions = [str(r["session_id"]) for r in rows]
    else:
        sessions = vote_sessions(fused[:VOTE_DEPTH], session_of, recipe.session_top)
    if not sessions:
        return []
    query = SESSION_MESSAGES if label == "Message" else SESSION_MEMORIES
    rows = await fetch(
        tx,
        query,
        learner_id=learner_id,
        sessions=sessions,
        embedding=embedding,
        kinds=kinds,
        per_session=recipe.session_turns,
    )
    grouped: dict[str, list[tuple[str, float]]] = {session: [] for session in sessions}
    if demoted is not None:
        demoted.update(str(r["id"]) for r in rows if r.get("disclosure") is False)
    for r in rows:
        grouped[str(r["session_id"])].append((str(r["id"]), float(r["score"] or 0.0)))
    return [sorted(grouped[session], key=lambda hit: -hit[1]) for session in sessions]
