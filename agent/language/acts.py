"""What a sentence does: asks, requests, or states something about the learner.

A statement about the learner is not a question (no "?", no question or auxiliary verb
first), not a request (please, let's, tell/show/give me, explain, here is how …, or a
reminder request), and either speaks in the first person, carries a number or a duration
("it came back 7.0", "postponed by a week": an event that changes a value), or states a
single-valued aspect of the learner by similarity ("Got hired as a data analyst",
``agent.language.statements.aspect``). The closed classes (question and auxiliary verbs,
first-person pronouns) are English grammar's, not a vocabulary of topics or verbs.
"""

from __future__ import annotations

import re

from agent.language.reminders import is_reminder_request
from agent.language.statements import aspect
from agent.language.when import duration

MIN_ASPECT_WORDS = 4
"""Words a sentence without a first person, number or duration needs to state an aspect."""
_QUESTION_START = re.compile(
    r"^\s*(?:what|where|when|who|whom|whose|which|why|how|can|could|would|will|shall|should|do|does|"
    r"did|is|are|am|was|were|have|has|may|might)\b",
    re.I,
)
_REQUEST = re.compile(
    r"^\s*(?:please\b|let's\b|let us\b|tell me\b|show me\b|explain\b|help me\b|give me\b"
    r"|here is how\b|here's how\b)",
    re.I,
)
_RESULT = re.compile(r"\b\d+(?:\.\d+)?\s*(?:out of|/)\s*\d+\b|\b\d+(?:\.\d+)?\s*%|\bscored?\b", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we're|our)\b", re.I)


def is_question(text: str) -> bool:
    """True for a question (ends with "?" or starts with a question or auxiliary verb)."""
    stripped = text.strip() if isinstance(text, str) else ""
    return bool(stripped) and (stripped.endswith("?") or _QUESTION_START.match(stripped) is not None)


def is_statement(text: str) -> bool:
    """True for a declarative statement about the learner (module docstring)."""
    if not isinstance(text, str) or not text.strip() or is_question(text):
        return False
    if _REQUEST.search(text) or is_reminder_request(text):
        return False
    if _FIRST_PERSON.search(text) or _RESULT.search(text) or re.search(r"\d", text) or duration(text):
        return True
    # A greeting ("Hello!") sits near "Hi, I'm Linh": an aspect needs a sentence to state it.
    return len(text.split()) >= MIN_ASPECT_WORDS and aspect(text) is not None
