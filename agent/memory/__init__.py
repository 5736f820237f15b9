"""Memory stores: core (Redis), recall and archival (Neo4j), the write backlog, erasure."""
