"""The vector probe every vector retriever shares: the index's top-k, learner-filtered, or an exact scan.

The vector index's top-k is global (every learner's nodes), so it is oversampled; a learner
with fewer candidates than asked for is scanned exactly in the same query
(``agent.search.queries.PROBE_TEMPLATE``); a learner crowded out of the top-k gets the exact
scan after all. Used by ``agent.search.hybrid``, ``agent.search.sentences`` and the fact store.
"""

from __future__ import annotations

from typing import Any

import neo4j

from agent.graphdb.store import fetch

MAX_VECTOR_K = 5000


def vector_k(params: dict[str, Any]) -> int:
    """The vector index's top-k: the candidates wanted, oversampled (the top-k is global)."""
    return min(MAX_VECTOR_K, params["limit"] * params["oversample"])


def probe_choice(row: dict[str, Any], limit: int) -> list[dict[str, Any]] | None:
    """The vector rows a probe row settles, or None when the exact scan must run after all.

    A learner with fewer than ``limit`` candidates would come up short in the index's
    top-k and end in the exact scan anyway: the probe finds out after ``limit`` nodes
    and then holds that scan's result (the learner's few messages, no procedures yet).
    None: the learner's hits were crowded out of the index's global top-k.
    """
    if row["candidates"] < limit:
        return sorted(row["few"], key=lambda r: -r["score"])
    if len(row["indexed"] or []) >= limit:
        return list(row["indexed"])
    return None


async def probed(
    tx: neo4j.AsyncTransaction, row: dict[str, Any], exact: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    """The vector list from a ``PROBE_TEMPLATE`` row: its exact scan, its index hits, or a new scan."""
    rows = probe_choice(row, params["limit"])
    return rows if rows is not None else await fetch(tx, exact, **query_params(params, embedding=True))


def query_params(params: dict[str, Any], *, embedding: bool = False) -> dict[str, Any]:
    """The query parameters a retriever's Cypher reads: the embedding only for a cosine.

    The driver packs the embedding (384 or 768 floats) in Python for every query it is sent
    with, so the queries that do not read it do not get it.
    """
    scope = {k: params[k] for k in ("learner_id", "kinds", "limit")}
    return scope | {"embedding": params["embedding"]} if embedding else scope
