"""Cypher for hybrid retrieval and the ``session`` retriever (parameters only).

Every query filters on ``learner_id = $learner_id``. The ``*_TEMPLATE`` strings take
a node label through ``str.format``; labels are our own constants (``Memory``,
``Message``, ``TurnSentence``), never user input, and are pre-formatted below.
"""

# ----- the learner's own term statistics (``agent.search.termstats``) -----

TERM_STATS_TEMPLATE = """
MATCH (n:{label} {{learner_id: $learner_id}})
WITH count(n) AS n
UNWIND $queries AS q
CALL (q) {{
  CALL db.index.fulltext.queryNodes($index, q, {{limit: $cap}}) YIELD node
  RETURN count(node) AS df
}}
RETURN n, collect({{query: q, df: df}}) AS dfs
"""
"""The learner's ``{label}`` count and, per query in ``$queries`` (each scoped to the learner's
key), how many documents of ``$index`` match it (at most ``$cap``); format with ``label``."""
TERM_STATS = {label: TERM_STATS_TEMPLATE.format(label=label) for label in ("Memory", "Message", "Note")}
"""``TERM_STATS_TEMPLATE`` per label."""

# ----- hybrid retrieval (``agent.search.hybrid``) -----

# The kind test comes first, inside CASE: the planner would otherwise read every node's
# embedding (1.5 KB) before testing the kind, and a ``kinds`` scan (procedures among
# 10k memories) would cost a full embedding read for nothing.
EXACT_TEMPLATE = """
MATCH (node:{label} {{learner_id: $learner_id}})
WITH node, CASE WHEN $kinds IS NULL OR node.kind IN $kinds THEN node.embedding END AS embedding
WHERE embedding IS NOT NULL AND size(embedding) = size($embedding)
RETURN node.id AS id, vector.similarity.cosine(embedding, $embedding) AS score, node.session_id AS session,
  node.disclosure AS disclosure
ORDER BY score DESC LIMIT $limit
"""
"""Exact cosine scan over one learner's ``{label}`` nodes (of ``$kinds``), with each one's
session (for the ``session`` retriever's votes) and ``disclosure`` flag (turn contexts only,
else null); format with ``label``."""
# One round trip for a learner of any size: the probe reads at most ``$limit`` candidates
# (the first found, not the best), and only when there are that many does the index run;
# their cosines are computed only when they are all there is (fewer than ``$limit``).
PROBE_PART_TEMPLATE = """
CALL () {{
  MATCH (node:{label} {{learner_id: $learner_id}})
  WITH node, CASE WHEN $kinds IS NULL OR node.kind IN $kinds THEN node.embedding END AS embedding
  WHERE embedding IS NOT NULL AND size(embedding) = size($embedding)
  WITH node, embedding LIMIT $limit
  WITH collect({{node: node, embedding: embedding}}) AS found
  RETURN size(found) AS candidates, [f IN found WHERE size(found) < $limit | {{
    id: f.node.id, score: vector.similarity.cosine(f.embedding, $embedding), session: f.node.session_id,
    disclosure: f.node.disclosure
  }}] AS few
}}
OPTIONAL CALL (candidates) {{
  WITH candidates WHERE candidates >= $limit
  CALL db.index.vector.queryNodes($index, $k, $embedding) YIELD node, score
  WITH node, score WHERE node.learner_id = $learner_id AND ($kinds IS NULL OR node.kind IN $kinds)
  WITH node, score ORDER BY score DESC LIMIT $limit
  RETURN collect({{
    id: node.id, score: score, session: node.session_id, disclosure: node.disclosure
  }}) AS indexed
}}
"""
PROBE_TEMPLATE = PROBE_PART_TEMPLATE + "RETURN candidates, few, indexed\n"
"""``candidates``: how many of ``EXACT_TEMPLATE``'s candidates the probe found (at most ``$limit``).
``few``: when fewer than ``$limit``, they with their cosine, i.e. ``EXACT_TEMPLATE``'s result
(unsorted); else empty. ``indexed``: the vector index's top ``$k``, filtered to the learner (and
``$kinds``), best ``$limit`` first; run only when ``candidates`` reaches ``$limit``. Every hit
carries its ``session`` and ``disclosure``. Format with ``label``."""
# The first-stage retrievers in one round trip: each full-text pass is its own subquery
# with one collected row, so the parts join as a single row and each keeps its own list.
# Full-text scores are sums of clause boosts (``agent.search.lucene``), so ties are common:
# they are broken by the learner's own order (``seq``), never by Lucene's document order.
FULLTEXT_PART_TEMPLATE = """
CALL () {{
  CALL db.index.fulltext.queryNodes($text_index, ${lucene}, {{limit: $text_k}}) YIELD node, score
  WITH node, score
  WHERE node.learner_id = $learner_id AND ($kinds IS NULL OR node.kind IN $kinds)
  WITH node, score ORDER BY score DESC, node.seq, node.id LIMIT $limit
  RETURN collect({{
    id: node.id, score: score, session: node.session_id, disclosure: node.disclosure
  }}) AS {name}
}}
"""
"""Full-text (Lucene) top-k as a subquery over ``$text_index`` with the Lucene query in
``${lucene}``, top ``$text_k``, filtered to the learner (and ``$kinds``), collected (best first,
with each hit's ``session`` and ``disclosure``) as ``{name}``."""
RECENT_TEMPLATE = """
MATCH (node:{label} {{learner_id: $learner_id}})
WHERE $kinds IS NULL OR node.kind IN $kinds
RETURN node.id AS id, toFloat(coalesce(node.seq, 0)) AS score
ORDER BY node.seq DESC LIMIT $limit
"""
"""One learner's newest ``{label}`` nodes by ``seq``; format with ``label``."""
CONTEXT_MEMORY = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Memory {id: $seeds[rank]})
WHERE s.learner_id = $learner_id AND s.session_id IS NOT NULL
CALL (s) {
  MATCH (n:Memory {learner_id: $learner_id})
  WHERE n.session_id = s.session_id AND n.seq < s.seq
  RETURN n ORDER BY n.seq DESC LIMIT $window
  UNION
  MATCH (n:Memory {learner_id: $learner_id})
  WHERE n.session_id = s.session_id AND n.seq > s.seq
  RETURN n ORDER BY n.seq ASC LIMIT $window
}
WITH n, min(rank) AS best
WHERE $kinds IS NULL OR n.kind IN $kinds
RETURN n.id AS id, 1.0 / (1 + best) AS score, n.disclosure AS disclosure
ORDER BY best ASC LIMIT $limit
"""
"""Neighbouring memories of the same session around each seed (``$window`` each way)."""
CONTEXT_MESSAGE = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Message {id: $seeds[rank]})
WHERE s.learner_id = $learner_id
MATCH path = (s)-[:NEXT*1..3]-(n:Message)
WHERE length(path) <= $window AND n.learner_id = $learner_id
WITH n, min(rank) AS best, min(length(path)) AS distance
RETURN n.id AS id, 1.0 / (1 + best) AS score, null AS disclosure
ORDER BY best ASC, distance ASC LIMIT $limit
"""
"""Messages within ``$window`` ``NEXT`` hops of each seed message."""
HIT_FIELDS = {
    "Memory": "id: n.id, text: n.text, created_at: n.created_at, kind: n.kind, "
    "tags: coalesce(n.tags, []), session_id: n.session_id, seq: n.seq, labels: labels(n)",
    "Message": "id: n.id, text: n.content, created_at: n.created_at, kind: 'message', tags: [], "
    "session_id: n.session_id, seq: n.seq, role: n.role, labels: labels(n)",
    # A turn context answered with the message it was derived from (``m``, bound by
    # ``TURN_SOURCE``); ``key`` is the ranked memory's id. Without the message, the memory.
    "Turn": "key: n.id, id: coalesce(m.id, n.id), text: coalesce(m.content, n.text), "
    "created_at: coalesce(m.created_at, n.created_at), "
    "kind: CASE WHEN m IS NULL THEN n.kind ELSE 'message' END, "
    "tags: CASE WHEN m IS NULL THEN coalesce(n.tags, []) ELSE [] END, "
    "session_id: coalesce(m.session_id, n.session_id), seq: coalesce(m.seq, n.seq), role: m.role, "
    "labels: CASE WHEN m IS NULL THEN labels(n) ELSE labels(m) END, "
    "turn_context: CASE WHEN m IS NULL THEN null ELSE n.id END",
}
"""A search hit's fields (a Cypher map body over ``n``), per label, and ``Turn`` (over ``n``
and its message ``m``)."""
TURN_SOURCE = """
  OPTIONAL CALL (n) {
    MATCH (n)-[:DERIVED_FROM]->(m:Message)
    WHERE m.learner_id = $learner_id
    RETURN m LIMIT 1
  }
"""
"""Binds ``m``: the learner's message a memory ``n`` was derived from (null when none)."""
HYDRATE_TEMPLATE = """
UNWIND $ids AS id
MATCH (n:{label} {{id: id}})
WHERE n.learner_id = $learner_id
{source}RETURN {{{hit}}} AS hit
"""
"""The learner's ``{label}`` nodes with ``$ids``, each as a ``hit`` map; format with ``label``,
its ``HIT_FIELDS`` and ``source`` (empty, or ``TURN_SOURCE`` for ``Turn`` hits)."""
SENTENCE_PROBE = PROBE_TEMPLATE.format(label="TurnSentence")
"""``PROBE_TEMPLATE`` over one learner's turn sentences (``agent.kernel.sentences``; no ``kind``)."""
SENTENCE_EXACT = EXACT_TEMPLATE.format(label="TurnSentence")
"""``EXACT_TEMPLATE`` over one learner's turn sentences."""

EXACT_BY_LABEL = {label: EXACT_TEMPLATE.format(label=label) for label in ("Memory", "Message")}
"""Exact cosine scan over one learner's nodes, per label (fallback for the vector index)."""
RECENT_BY_LABEL = {label: RECENT_TEMPLATE.format(label=label) for label in ("Memory", "Message")}
"""The learner's newest nodes, per label (when a query has nothing to match on)."""
HYDRATE_BY_LABEL = {
    label: HYDRATE_TEMPLATE.format(label=label, hit=HIT_FIELDS[label], source="")
    for label in ("Memory", "Message")
}
"""The learner's nodes with ``$ids`` as ``hit`` maps, per label."""
HYDRATE_TURN = HYDRATE_TEMPLATE.format(label="Memory", hit=HIT_FIELDS["Turn"], source=TURN_SOURCE)
"""The learner's memories with ``$ids`` as ``Turn`` hits: each turn context as its message."""

FIRST_STAGE_PARTS = ("vector", "fulltext", "question")
"""The first-stage retrievers ``FIRST_STAGE`` can run together, in the order they fuse."""


def _first_stage(label: str, parts: tuple[str, ...]) -> str:
    body = {
        "vector": PROBE_PART_TEMPLATE.format(label=label),
        "fulltext": FULLTEXT_PART_TEMPLATE.format(lucene="lucene", name="fulltext"),
        "question": FULLTEXT_PART_TEMPLATE.format(lucene="question", name="question"),
    }
    columns = {"vector": "candidates, few, indexed", "fulltext": "fulltext", "question": "question"}
    return "".join(body[p] for p in parts) + f"RETURN {', '.join(columns[p] for p in parts)}\n"


FIRST_STAGE = {
    (label, parts): _first_stage(label, parts)
    for label in ("Memory", "Message")
    for parts in (tuple(p for i, p in enumerate(FIRST_STAGE_PARTS) if mask >> i & 1) for mask in range(1, 8))
}
"""``(label, parts)`` -> one query running those first-stage retrievers, one row: ``vector`` as
``PROBE_TEMPLATE``'s ``few`` and ``indexed`` (``$index``, ``$k``), ``fulltext`` and ``question``
as ``FULLTEXT_PART_TEMPLATE`` lists (``$lucene``, ``$question``; ``$text_index``, ``$text_k``)."""
# Context and hydration in one round trip: the page's hits are known only after the context
# list is fused, so the caller sends the candidates that can still make the page (``$ids``)
# and the context neighbours are hydrated with them.
CONTEXT_HYDRATE_TEMPLATE = """
CALL () {{
{context}}}
WITH collect({{id: id, score: score, disclosure: disclosure}}) AS context
CALL (context) {{
  UNWIND $ids + [c IN context WHERE NOT c.id IN $ids | c.id] AS id
  MATCH (n:{label} {{id: id}})
  WHERE n.learner_id = $learner_id
{source}  RETURN collect({{{hit}}}) AS hits
}}
RETURN context, hits
"""
"""``context``: the ``CONTEXT_*`` list (best first); ``hits``: the learner's ``{label}`` nodes
among ``$ids`` and the context's ids, as ``hit`` maps. Format with ``label``, ``context``, ``hit``
and ``source`` (as ``HYDRATE_TEMPLATE``)."""
CONTEXT_HYDRATE = {
    label: CONTEXT_HYDRATE_TEMPLATE.format(label=label, context=context, hit=HIT_FIELDS[label], source="")
    for label, context in (("Memory", CONTEXT_MEMORY), ("Message", CONTEXT_MESSAGE))
}
"""``CONTEXT_HYDRATE_TEMPLATE`` per label."""
CONTEXT_HYDRATE_TURN = CONTEXT_HYDRATE_TEMPLATE.format(
    label="Memory", context=CONTEXT_MEMORY, hit=HIT_FIELDS["Turn"], source=TURN_SOURCE
)
"""``CONTEXT_HYDRATE_TEMPLATE`` over memories, the page's hits as ``Turn`` hits."""

# ----- the ``session`` retriever (``agent.search.sessions``) -----

# One round trip for all top sessions: each session's best turns, in a per-session subquery.
SESSION_MEMORIES = """
UNWIND $sessions AS session_id
CALL (session_id) {
  MATCH (n:Memory {learner_id: $learner_id})
  WHERE n.session_id = session_id AND NOT n:SessionSummary
    AND n.embedding IS NOT NULL AND size(n.embedding) = size($embedding)
    AND ($kinds IS NULL OR n.kind IN $kinds)
  WITH n, vector.similarity.cosine(n.embedding, $embedding) AS score
  RETURN n.id AS id, score, n.disclosure AS disclosure
  ORDER BY score DESC LIMIT $per_session
}
RETURN session_id, id, score, disclosure
"""
"""Per session in ``$sessions``: its non-summary memories, best cosine first (with ``disclosure``)."""
SESSION_MESSAGES = """
UNWIND $sessions AS session_id
CALL (session_id) {
  MATCH (n:Message {learner_id: $learner_id, session_id: session_id})
  WHERE n.embedding IS NOT NULL AND size(n.embedding) = size($embedding)
  WITH n, vector.similarity.cosine(n.embedding, $embedding) AS score
  RETURN n.id AS id, score
  ORDER BY score DESC LIMIT $per_session
}
RETURN session_id, id, score
"""
"""Per session in ``$sessions``: its messages, best cosine first."""
