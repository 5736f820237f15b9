"""The memory kernel: ingestion off the hot path, reflection in the background, consultation on demand.

``stream`` is the durable Redis Stream every deferred write goes through, ``worker``
drains it into Neo4j (``handlers`` say how each operation is applied), ``derive``
builds the write-time representations, ``reflection`` and ``consult`` are the
background and on-demand halves (docs/kernel.md).
"""
