"""The language layer: what a learner's sentence means (DESIGN.md § 8).

- ``sentences``: sentence boundaries (``pysbd``), so code names ("functools.wraps"), versions,
  abbreviations, decimals and URLs stay inside their sentence.
- ``facts``: what is a fact statement, and the narrow slot the rule table names for it;
  ``same_thing``: whether a statement outside those slots gives a new value to a fact the
  learner told before (MiniLM, retired only when near-certain) and, at read time, which open
  facts disagree about one thing; ``differences``: a change stated as a difference ("by a
  week", "cut by 200") and the value it leads to (``dateparser``).

Intents and reminder triggers still come from their rule modules (``agent.heartbeat.effort``,
``agent.memory.reminder_rules``); a first similarity-based reading of them was built,
measured and not shipped (docs/decisions/language-layer.md).
"""
