"""The language layer: what a learner's sentence means (DESIGN.md § 8).

- ``sentences``: sentence boundaries (``pysbd``), so code names ("functools.wraps"), versions,
  abbreviations, decimals and URLs stay inside their sentence.
- ``facts``: what is a fact statement, and the narrow slot the rule table names for it;
  ``same_thing``: whether a statement outside those slots gives a new value to a fact the
  learner told before (MiniLM, retired only when near-certain) and, at read time, which open
  facts disagree about one thing; ``differences``: a change stated as a difference ("by a
  week", "cut by 200") and the value it leads to (``dateparser``); ``about``: which part of
  the learner's life a statement tells (job, home, major, device, language, app: a logistic
  regression over MiniLM vectors, ``about_exemplars``), what the read-time net compares.

- ``intents``: the effort a request calls for, rules first, then a logistic regression over
  MiniLM vectors (``intent_exemplars``) that overrides the catch-all only when sure;
- ``reminders``: a reminder request's task and trigger, the trigger clause first or last,
  any connective; whether a turn names a trigger; ``when``: time phrases as of a clock
  (``dateparser``); ``procedures``: a procedure the learner states or asks for;
- ``model``: the intent and reminder questions to an LLM with structured output, the offline
  layer answering (and the run logging it) when the answer is malformed;
- ``encoder``: the shared MiniLM the layer compares with.
"""
