"""Whether a learner's sentence asks: one rule for every reader of learner text (issue 39).

It asks when it ends with ``?``, opens with a question word, or opens with an auxiliary or
modal **inverted before its subject** (learners leave the ``?`` off: "should I learn R first",
"does pandas keep the index"). Without a subject after it, the auxiliary starts a statement
whose subject was dropped: "Did eleven more over the weekend!", "Had to take $70 out of it.",
"Might be easier to use a dict here." — so the subject is read (a pronoun, a determiner or a
name; after "do"/"does" any word but a number), which is grammar, not a topic list.

Chosen on ``bench/language/questions.json`` (56 labelled learner sentences): the notes' old
openers read 36, the offline policy's 35, any opener 39, the inversion rule 43. "Don't" opens
requests ("Don't let me forget to ask about heapq ..."), never a question. Missed still:
indirect questions ("I wonder whether ..."), statements that open with a question word ("How I
solved it was ...").
"""

from __future__ import annotations

import re

from agent.language.quantities import numbers

QUESTION_WORD = re.compile(r"^\s*(what|when|where|who|whom|whose|which|how|why)\b", re.I)
"""A question word: it asks wherever it stands first."""
AUXILIARY = re.compile(
    r"^\s*(am|is|are|was|were|do|does|did|can|could|should|would|will|shall|may|might|has|have|had|"
    r"isn't|aren't|doesn't|didn't|can't|won't)\s+(\S+)",
    re.I,
)
"""An auxiliary or modal first, and the word after it (the subject, when it is inverted)."""
_SUBJECT = re.compile(
    r"^(?:i|you|we|they|he|she|it|there|this|that|these|those|my|your|our|their|his|her|its|the|a|an|"
    r"any|anyone|anybody|someone|somebody|everyone|all|each|[A-Z][\w.+#-]*)$"
)
"""What stands after an inverted auxiliary: a pronoun, a determiner or a name (a closed class)."""


def is_question(sentence: str) -> bool:
    """True when ``sentence`` asks: a ``?`` at its end, a question word first, or an inverted auxiliary."""
    text = sentence.strip()
    if text.endswith("?") or QUESTION_WORD.match(text):
        return True
    match = AUXILIARY.match(text)
    if match is None:
        return False
    after = match.group(2).strip(",.;:!\"'")
    if not after or numbers(after):
        return False
    return _SUBJECT.match(after) is not None or match.group(1).lower() in ("do", "does")
