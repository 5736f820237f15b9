"""Every Cypher statement of the kernel routes (``agent.server.kernel_status``): counts only.

Each branch matches one label by ``learner_id`` (the label's range index), so
``GET /kernel/stats`` counts the authenticated learner's nodes and nobody else's.
Types a learner has none of count 0 (``agent.server.kernel_status.MEMORY_TYPES``).
"""

from __future__ import annotations

MEMORY_COUNTS = """
CALL () {
  MATCH (m:Memory {learner_id: $learner_id})
  RETURN CASE
    WHEN m:Insight THEN 'insight'
    WHEN m:Pattern THEN 'pattern'
    WHEN m:Fact THEN 'fact'
    WHEN m:Procedure THEN 'procedure'
    ELSE coalesce(m.kind, 'memory')
  END AS type, count(m) AS n
  UNION ALL
  MATCH (m:Message {learner_id: $learner_id}) RETURN 'message' AS type, count(m) AS n
  UNION ALL
  MATCH (m:Note {learner_id: $learner_id}) RETURN 'note' AS type, count(m) AS n
  UNION ALL
  MATCH (m:Reminder {learner_id: $learner_id}) RETURN 'reminder' AS type, count(m) AS n
  UNION ALL
  MATCH (m:CoreSection {learner_id: $learner_id}) RETURN 'core_section' AS type, count(m) AS n
  UNION ALL
  MATCH (m:TurnSentence {learner_id: $learner_id}) RETURN 'turn_sentence' AS type, count(m) AS n
}
RETURN type, sum(n) AS n
"""
"""The learner's nodes by memory type: ``Memory`` nodes by label (insight, pattern, fact, procedure)
or else their ``kind`` (memory, summary, raw_summary, episode, ...), then messages, notes,
reminders, core sections and turn sentences."""

PING = "RETURN 1 AS ok"
"""Neo4j liveness for ``GET /kernel/health``."""
