"""Cypher for hybrid retrieval and the ``session`` retriever (parameters only).

Every query filters on ``learner_id = $learner_id``. The ``*_TEMPLATE`` strings take
a node label through ``str.format``; labels are our own constants (``Memory``,
``Message``, ``Note``), never user input, and are pre-formatted below.
"""

# ----- hybrid retrieval (``agent.search.hybrid``) -----

FULLTEXT_QUERY = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $k}) YIELD node, score
WITH node, score
WHERE node.learner_id = $learner_id AND ($kinds IS NULL OR node.kind IN $kinds)
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $limit
"""
"""Full-text (Lucene) top-k, filtered to the learner (and ``$kinds``)."""
# The kind test comes first, inside CASE: the planner would otherwise read every node's
# embedding (1.5 KB) before testing the kind, and a ``kinds`` scan (procedures among
# 10k memories) would cost a full embedding read for nothing.
EXACT_TEMPLATE = """
MATCH (node:{label} {{learner_id: $learner_id}})
WITH node, CASE WHEN $kinds IS NULL OR node.kind IN $kinds THEN node.embedding END AS embedding
WHERE embedding IS NOT NULL AND size(embedding) = size($embedding)
RETURN node.id AS id, vector.similarity.cosine(embedding, $embedding) AS score
ORDER BY score DESC LIMIT $limit
"""
"""Exact cosine scan over one learner's ``{label}`` nodes (of ``$kinds``); format with ``label``."""
# One round trip for a learner of any size: the probe reads at most ``$limit`` candidates
# (the first found, not the best), and only when there are that many does the index run.
PROBE_TEMPLATE = """
CALL () {{
  MATCH (node:{label} {{learner_id: $learner_id}})
  WITH node, CASE WHEN $kinds IS NULL OR node.kind IN $kinds THEN node.embedding END AS embedding
  WHERE embedding IS NOT NULL AND size(embedding) = size($embedding)
  WITH node, embedding LIMIT $limit
  RETURN collect({{id: node.id, score: vector.similarity.cosine(embedding, $embedding)}}) AS few
}}
OPTIONAL CALL (few) {{
  WITH few WHERE size(few) >= $limit
  CALL db.index.vector.queryNodes($index, $k, $embedding) YIELD node, score
  WITH node, score WHERE node.learner_id = $learner_id AND ($kinds IS NULL OR node.kind IN $kinds)
  WITH node, score ORDER BY score DESC LIMIT $limit
  RETURN collect({{id: node.id, score: score}}) AS indexed
}}
RETURN few, indexed
"""
"""``few``: ``EXACT_TEMPLATE``'s candidates, the first ``$limit`` found, with their cosine;
fewer than ``$limit`` means that is all of them, i.e. ``EXACT_TEMPLATE``'s result (unsorted).
``indexed``: the vector index's top ``$k``, filtered to the learner (and ``$kinds``), best
``$limit`` first; run only when ``few`` is full. Format with ``label``."""
RECENT_TEMPLATE = """
MATCH (node:{label} {{learner_id: $learner_id}})
WHERE $kinds IS NULL OR node.kind IN $kinds
RETURN node.id AS id, toFloat(coalesce(node.seq, 0)) AS score
ORDER BY node.seq DESC LIMIT $limit
"""
"""One learner's newest ``{label}`` nodes by ``seq``; format with ``label``."""
EXPAND_MEMORY = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Memory {id: $seeds[rank]})
WHERE s.learner_id = $learner_id
CALL (s) {
  MATCH (s)-[:DERIVED_FROM|FOLDS|LINKS_TO|RELATES_TO|SIMILAR_TO]-(n:Memory)
  RETURN n
  UNION
  MATCH (s)-[:DERIVED_FROM|SUMMARIZES]->(:Message)<-[:DERIVED_FROM|SUMMARIZES]-(n:Memory)
  RETURN n
}
WITH n, min(rank) AS best, count(*) AS support
WHERE n.learner_id = $learner_id AND ($kinds IS NULL OR n.kind IN $kinds)
RETURN n.id AS id, 1.0 / (1 + best) AS score
ORDER BY best ASC, support DESC, n.seq DESC LIMIT $limit
"""
"""Graph expansion of memory seeds through derivation, folding and link edges."""
EXPAND_MESSAGE = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Message {id: $seeds[rank]})
WHERE s.learner_id = $learner_id
MATCH (s)<-[:SUMMARIZES|DERIVED_FROM]-(m:Memory)-[:SUMMARIZES|DERIVED_FROM]->(n:Message)
WHERE n <> s AND m.learner_id = $learner_id AND n.learner_id = $learner_id
WITH s, n, rank
WITH n, min(rank) AS best, min(abs(n.seq - s.seq)) AS distance
RETURN n.id AS id, 1.0 / (1 + best) AS score
ORDER BY best ASC, distance ASC LIMIT $limit
"""
"""Graph expansion of message seeds: messages summarised with the same memory."""
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
RETURN n.id AS id, 1.0 / (1 + best) AS score
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
RETURN n.id AS id, 1.0 / (1 + best) AS score
ORDER BY best ASC, distance ASC LIMIT $limit
"""
"""Messages within ``$window`` ``NEXT`` hops of each seed message."""
HYDRATE_MEMORY = """
UNWIND $ids AS id
MATCH (n:Memory {id: id})
WHERE n.learner_id = $learner_id
RETURN n.id AS id, n.text AS text, n.created_at AS created_at, n.kind AS kind,
       coalesce(n.tags, []) AS tags, n.session_id AS session_id, n.seq AS seq,
       labels(n) AS labels
"""
"""The learner's memories with ``$ids``, as search hits."""
HYDRATE_MESSAGE = """
UNWIND $ids AS id
MATCH (n:Message {id: id})
WHERE n.learner_id = $learner_id
RETURN n.id AS id, n.content AS text, n.created_at AS created_at, 'message' AS kind,
       [] AS tags, n.session_id AS session_id, n.seq AS seq, n.role AS role,
       labels(n) AS labels
"""
"""The learner's messages with ``$ids``, as search hits."""
# Zettelkasten notes belong to another module; read them defensively.
NOTE_LABEL_EXISTS = "CALL db.labels() YIELD label WITH label WHERE label = 'Note' RETURN count(*) AS n"
"""Whether the database has a ``Note`` label at all."""
NOTE_INDEXES = """
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options, state
WHERE 'Note' IN labelsOrTypes AND state = 'ONLINE' AND type IN ['VECTOR', 'FULLTEXT']
RETURN name, type, properties, options.indexConfig['vector.dimensions'] AS dimension
"""
"""Online vector and full-text indexes on ``:Note``."""
NOTE_EXACT = EXACT_TEMPLATE.format(label="Note")
"""Exact cosine scan over one learner's notes."""
NOTE_PROBE = PROBE_TEMPLATE.format(label="Note")
"""``PROBE_TEMPLATE`` over one learner's notes."""
HYDRATE_NOTE = """
UNWIND $ids AS id
MATCH (n:Note)
WHERE n.id = id AND n.learner_id = $learner_id
RETURN n.id AS id, coalesce(n.text, n.description, n.content, '') AS text,
       toString(coalesce(n.created_at, n.timestamp)) AS created_at, 'note' AS kind,
       coalesce(n.tags, []) AS tags, null AS session_id, n.seq AS seq, labels(n) AS labels
"""
"""The learner's notes with ``$ids``, as search hits (fields read defensively)."""

EXACT_BY_LABEL = {label: EXACT_TEMPLATE.format(label=label) for label in ("Memory", "Message")}
"""Exact cosine scan over one learner's nodes, per label (fallback for the vector index)."""
PROBE_BY_LABEL = {label: PROBE_TEMPLATE.format(label=label) for label in ("Memory", "Message")}
"""``PROBE_TEMPLATE`` per label (the exact scan of a small learner, else the vector index)."""
RECENT_BY_LABEL = {label: RECENT_TEMPLATE.format(label=label) for label in ("Memory", "Message")}
"""The learner's newest nodes, per label (when a query has nothing to match on)."""

# ----- the ``session`` retriever (``agent.search.sessions``) -----

TOP_SESSIONS = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $k}) YIELD node, score
WITH node, score
WHERE node:SessionSummary AND node.learner_id = $learner_id AND node.session_id IS NOT NULL
WITH node.session_id AS session_id, max(score) AS best
RETURN session_id, best
ORDER BY best DESC, session_id ASC LIMIT $sessions
"""
"""The learner's best-matching sessions by full text over their summaries."""
SESSIONS_OF_TEMPLATE = """
UNWIND $ids AS id
MATCH (n:{label} {{id: id}})
WHERE n.learner_id = $learner_id AND n.session_id IS NOT NULL
RETURN n.id AS id, n.session_id AS session_id
"""
"""The session of each of the learner's ``{label}`` nodes with ``$ids``."""
# One round trip for all top sessions: each session's best turns, in a per-session subquery.
SESSION_MEMORIES = """
UNWIND $sessions AS session_id
CALL (session_id) {
  MATCH (n:Memory {learner_id: $learner_id})
  WHERE n.session_id = session_id AND NOT n:SessionSummary
    AND n.embedding IS NOT NULL AND size(n.embedding) = size($embedding)
    AND ($kinds IS NULL OR n.kind IN $kinds)
  WITH n, vector.similarity.cosine(n.embedding, $embedding) AS score
  RETURN n.id AS id, score
  ORDER BY score DESC LIMIT $per_session
}
RETURN session_id, id, score
"""
"""Per session in ``$sessions``: its non-summary memories, best cosine first."""
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
SESSIONS_OF = {label: SESSIONS_OF_TEMPLATE.format(label=label) for label in ("Memory", "Message")}
"""``SESSIONS_OF_TEMPLATE`` per label."""
