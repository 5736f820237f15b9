"""The language layer: what a learner's sentence means (DESIGN.md § 8).

- ``sentences``: sentence boundaries (``pysbd``), so code names ("functools.wraps"), versions,
  abbreviations, decimals and URLs stay inside their sentence.

Intents, fact slots and reminder triggers still come from the rule modules
(``agent.heartbeat.effort``, ``agent.memory.fact_rules``, ``agent.memory.reminder_rules``);
a similarity-based reading of them was built, measured and not shipped
(docs/decisions/language-layer.md).
"""
