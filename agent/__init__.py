"""KAG's logic, organised by concern: heartbeat, graphdb, memory, search, notes, models, server, checkpoint.

This package never imports ``tools``, ``graphs`` or ``bench`` (``make lint`` checks it).
"""
