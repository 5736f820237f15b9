"""The ``session`` retriever: the sessions that match the query best lend weight to their turns.

Hierarchical retrieval: the fused hits vote for their sessions (a session scores the sum
of its ``VOTES`` best fused scores among the top ``VOTE_DEPTH`` hits), and each of the top
``recipe.session_top`` sessions contributes its own turns ranked by cosine similarity to the
query. ``hybrid_search`` fuses one list per session rank with weight ``session_weight / rank``.
Every query filters on ``learner_id``; labels are our own constants, never user input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import neo4j

from agent.graphdb.store import fetch
from agent.search.queries import SESSION_MEMORIES, SESSION_MESSAGES
from agent.search.recipes import SearchRecipe

VOTE_DEPTH = 50
VOTES = 3


def vote_sessions(
    fused: Sequence[tuple[str, float]], session_of: Mapping[str, str], top: int, *, votes: int = VOTES
) -> list[str]:
    """Sessions ranked by the sum of their ``votes`` best scores among ``fused`` (best first).

    Hits without a session do not vote; ties keep the session seen first.
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
    fused: Sequence[tuple[str, float]],
    session_of: Mapping[str, str],
    demoted: set[str] | None = None,
) -> list[list[tuple[str, float]]]:
    """One ranked ``(id, cosine)`` list per top session, best session first.

    ``session_of`` maps the first-stage hits of ``label`` to their session (the first-stage
    queries return it, so the votes cost no round trip); hits without a session do not vote.
    The ids of the turns read whose ``disclosure`` flag is false are added to ``demoted``.
    """
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
