"""Reflection: the memory kernel's background half (issue 14 §2, design §5).

Per learner, five steps, each reporting what it changed (``reports``):

- ``synthesis``: insights across messages, facts and notes (``:Memory:Insight``);
- ``anticipation``: behaviour and error patterns (``:Memory:Pattern``);
- ``curation``: contradicting current facts superseded (bi-temporal facts);
- ``prioritisation``: activation from recency and frequency (``agent.memory.activation``);
- ``decay``: hourly, rate 0.05, on the injected clock.

Offline everything is rule-based (``rules``, documented there); a run with nothing new
writes nothing. Entry points: ``run.reflect_learners`` and ``graphs/reflection.py``.
"""
