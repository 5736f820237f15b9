"""Cypher of the graph database's own health checks (``kag smoke``)."""

PROBE_WRITE = "MERGE (p:KagProbe {id: $id})"
"""Write a throw-away probe node."""
PROBE_READ = "MATCH (p:KagProbe {id: $id}) RETURN p.id AS id"
"""Read the probe back."""
PROBE_DELETE = "MATCH (p:KagProbe {id: $id}) DELETE p"
"""Remove the probe."""
