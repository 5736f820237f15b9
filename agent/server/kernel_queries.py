"""Every Cypher statement of the kernel routes (``agent.server.kernel_status``): counts only.

Each branch matches one label by ``learner_id`` (the label's range index), so
``GET /kernel/stats`` counts the authenticated learner's nodes and nobody else's.
Labels a store has not created yet (``Insight`` and ``Pattern`` before the first
reflection) count 0.
"""

from __future__ import annotations

MEMORY_COUNTS = """
CALL () {
  MATCH (m:Memory {learner_id: $learner_id})
  RETURN coalesce(m.kind, 'memory') AS type, count(m) AS n
  UNION ALL
  MATCH (m:Message {learner_id: $learner_id}) RETURN 'message' AS type, count(m) AS n
  UNION ALL
  MATCH (m:Note {learner_id: $learner_id}) RETURN 'note' AS type, count(m) AS n
  UNION ALL
  MATCH (m:Reminder {learner_id: $learner_id}) RETURN 'reminder' AS type, count(m) AS n
  UNION ALL
  MATCH (m:CoreSection {learner_id: $learner_id}) RETURN 'core_section' AS type, count(m) AS n
  UNION ALL
  MATCH (m:Insight {learner_id: $learner_id}) WHERE NOT m:Memory RETURN 'insight' AS type, count(m) AS n
  UNION ALL
  MATCH (m:Pattern {learner_id: $learner_id}) WHERE NOT m:Memory RETURN 'pattern' AS type, count(m) AS n
}
RETURN type, sum(n) AS n
"""
"""The learner's nodes by memory type: ``Memory`` nodes by their ``kind`` (memory, summary, fact,
procedure, episode, ...), then messages, notes, reminders, core sections, insights and patterns."""

PING = "RETURN 1 AS ok"
"""Neo4j liveness for ``GET /kernel/health``."""
