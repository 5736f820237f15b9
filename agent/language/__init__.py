"""The language layer: what a learner's sentence means, for every part of KAG (DESIGN.md § 8).

- ``sentences``: sentence boundaries (``pysbd``: code names, versions, abbreviations, URLs);
- ``when``: dates and durations relative to the session's clock (``dateparser``);
- ``encoder``: MiniLM and nearest-exemplar classification (``exemplars``: labelled sentences);
- ``intents``: the effort a request calls for; ``reminders``: a reminder request, its task and
  trigger wherever the trigger clause stands; ``statements``: what a statement is about and
  the value it changes (``aspect``, ``resolve_change``);
- ``model``: the same questions to an LLM with structured output, the offline layer answering
  when the model's answer is malformed (logged).
"""
