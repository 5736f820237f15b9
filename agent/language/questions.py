"""Whether a learner's sentence asks: one rule for every reader of learner text (issue 39).

It asks when it ends with ``?`` or opens with a question word, auxiliary or modal (learners
leave the ``?`` off: "should I learn R first"). Chosen on ``bench/language/questions.json``
(56 labelled learner sentences): the notes' old openers read 36, the offline policy's 35, both
together 37, both without "don't" 39 (this rule). "Don't" opens requests ("Don't let me forget
to ask about heapq ...": 16 in the cognitive sets, none a question). Missed still: indirect
questions ("I wonder whether ..."), statements that open with a question word ("How I solved it
was ...") and imperatives with an auxiliary ("Have a look ...").
"""

from __future__ import annotations

import re

QUESTION_OPENER = re.compile(
    r"^\s*(what|when|where|who|whom|whose|which|how|why|am|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|shall|may|might|has|have|had|isn't|aren't|doesn't|didn't|can't|won't)\b",
    re.I,
)
"""A question word, or an auxiliary or modal that opens an inverted question."""


def is_question(sentence: str) -> bool:
    """True when ``sentence`` asks: it ends with ``?`` or opens with :data:`QUESTION_OPENER`."""
    return sentence.strip().endswith("?") or QUESTION_OPENER.match(sentence) is not None
