"""Facts in a learner's words: which slot a statement fills, what it replaces, what is a fact.

A fact's slot is ``(subject, predicate)``. A new fact closes the current fact in the
same slot (``agent.memory.facts``), so slots are deliberately **narrow**: only the
phrasings below get a shared slot; anything else gets ``None`` and the store gives it
a slot of its own, so unrelated facts never retire each other.

| predicate   | subject                   | phrasings (case-insensitive)                              |
|-------------|---------------------------|-----------------------------------------------------------|
| residence   | learner                   | I live in, I moved to, I relocated (to), I'm based in      |
| goal        | learner                   | my goal is, my new goal, my goal now, I reached my … goal  |
| tool        | the language or purpose   | I write (all) my <Lang> in X, I switched/changed from X to |
|             | (``learner`` if none)     | Y, I use X for <purpose>                                  |
| job         | learner                   | I (now) work (part-time) as/at, my job is, I'm employed as |
| study       | learner                   | I study, I'm studying, I'm a … student, I major in        |
| level       | learner                   | I'm a (complete) beginner/intermediate/advanced, my level  |
| name        | learner                   | my name is, call me, I'm <Capitalised name>               |

When several rules match, the first predicate in the table wins. ``replaced_values``
names what a statement retires besides its slot ("switched from Jupyter to VS Code"
-> ``["Jupyter"]``; "I reached my joins goal" -> ``["joins"]``); the store retires the
current facts with the same predicate that name one of these values.

``query_slots`` maps a question onto the slots it asks about ("Where does the learner
live?" -> residence; "Which editor … for Python?" -> ``("python", "tool")``), so a
search can rank the facts of those slots as one more list (``agent.memory.facts``).

``is_fact_statement`` accepts a statement (not a question: no ``?``, no question or
auxiliary verb first; not a request: please, let's, remind me, here is how …; not an example
of the sentence before it: "For example, …") that fills
a known slot, speaks in the first person (I, my, me, we, our …), reports a result ("71 out
of 100", "86%", "scored") or states a value: a date, a number or a change by a difference
(``agent.language.shifts.states_a_value``), so an update told by an event or by
someone else ("The professor postponed the final by a week", "Retook IELTS writing and it
came back 7.0") is remembered too; or tells a part of the learner's life without the first
person ("Home is a village outside Kraków.", ``agent.language.about``), or a value of the
learner's with the subject left out or changed by others ("Passed the B1 Dutch exam!", "They
brought the final forward three days": ``owns_a_value``, a classifier over
``agent.language.own_values``). A general truth in a definition's shape ("A prime number has
exactly two divisors, 1 and itself.") is none.

What one message stores (the statement a question carries, the clauses that fill different
slots, the learner's clauses only) is ``agent.language.fact_parts``. Measured by
``python -m bench.fact_write_knobs``.

The same-thing reader for statements outside these slots is ``agent.language.same_thing``;
the fact store applies both (``agent.memory.facts``).
"""

from __future__ import annotations

import re

from agent.language.about import OTHER, about
from agent.language.own_values import has_a_value, owns_a_value
from agent.language.questions import is_question
from agent.language.shifts import states_a_value
from agent.language.when import tells_own_event

LANGUAGES = (
    "python",
    "sql",
    "r",
    "javascript",
    "typescript",
    "java",
    "c++",
    "c#",
    "go",
    "rust",
    "julia",
    "matlab",
    "scala",
    "kotlin",
    "swift",
    "ruby",
    "php",
)
"""Languages that name the subject of a ``tool`` fact ("my Python", "for SQL")."""

_RESIDENCE = re.compile(
    r"\bi\s+(?:now\s+|currently\s+)?(?:live|am living|'m living)\s+in\b|\bi\s+(?:just\s+)?moved\s+to\b"
    r"|\bi\s+(?:have\s+|'ve\s+)?relocated\b|\bi(?:'m| am)\s+(?:now\s+)?based\s+in\b",
    re.I,
)
_GOAL = re.compile(
    r"\bmy\s+(?:new\s+|current\s+|main\s+)?goal\s+(?:is|now is|now)\b|\bmy\s+new\s+goal\b"
    r"|\bi\s+(?:reached|achieved|met|hit)\s+my\s+(?:[\w-]+\s+){0,3}goal\b",
    re.I,
)
_WRITE_LANG = re.compile(r"\bi\s+(?:write|code|program)\s+(?:all\s+)?(?:of\s+)?my\s+([\w+#]+)\s+in\b", re.I)
_SWITCHED = re.compile(
    r"\bi(?:'ve| have)?\s+(?:just\s+)?(?:switched|changed|moved|migrated)\s+from\s+(.+?)\s+to\s+(.+?)"
    r"(?=$|[.,;!?]|\s+(?:this|last|because|since|for|now|today)\b)",
    re.I,
)
_USE_FOR = re.compile(r"\bi\s+(?:now\s+)?use\s+(.+?)\s+for\s+(?:my\s+|all\s+my\s+)?([\w+#-]+)", re.I)
_JOB = re.compile(
    r"\bi\s+(?:(?:now|currently|also|still)\s+)?work\s+(?:(?:part|full)[- ]time\s+|remotely\s+)?(?:as|at)\b"
    r"|\bmy\s+job\s+is\b|\bi(?:'m| am)\s+employed\s+as\b",
    re.I,
)
_STUDY = re.compile(
    r"\bi\s+study\b|\bi(?:'m| am)\s+studying\b|\bi\s+major\s+in\b"
    r"|\bi(?:'m| am)\s+an?\s+(?:[\w-]+\s+){0,3}student\b",
    re.I,
)
_LEVEL = re.compile(
    r"\bi(?:'m| am)\s+(?:an?\s+)?(?:complete\s+|total\s+|absolute\s+)?(?:beginner|intermediate|advanced)\b"
    r"|\bmy\s+level\s+is\b",
    re.I,
)
NAMES = re.compile(r"(?i:\bmy\s+name\s+is\b|\bcall\s+me\b)|\b[Ii](?:'m| am)\s+[A-Z][a-z]+\b(?!\s+student)")
_REACHED_GOAL = re.compile(r"\bi\s+(?:reached|achieved|met|hit)\s+my\s+((?:[\w-]+\s+){0,3}?)goal\b", re.I)
_REQUEST = re.compile(
    r"^\s*(?:please\b|let's\b|let us\b|remind me\b|tell me\b|show me\b|explain\b|help me\b|give me\b"
    r"|here is how\b|here's how\b)|\bremind me\b|\bplease\W*$",
    re.I,
)
_RESULT = re.compile(r"\b\d+(?:\.\d+)?\s*(?:out of|/)\s*\d+\b|\b\d+(?:\.\d+)?\s*%|\bscored?\b", re.I)
_EXAMPLE = re.compile(r"^\s*(?:for example|for instance|e\.g\.|as an example)\b", re.I)
"""An example of what the sentence before it says ("For example, [x * x …] gives …"): not a fact."""
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|our|us)\b", re.I)
_DEFINITION = re.compile(
    r"^\s*(?:an?|every|each|any)\s+[\w\s'-]{1,60}?\s+(?:is|are|has|have|means|equals|contains|consists)\b",
    re.I,
)
"""A general truth by its shape: an indefinite subject ("A prime number", "Every triangle") and a
verb in the present that defines it ("has exactly two divisors, 1 and itself")."""
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours)\b", re.I)


def is_definition(text: str) -> bool:
    """True for a general truth ("A prime number has exactly two divisors, 1 and itself.").

    A definition's shape, in neither the first nor the second person: its numbers are no value
    of the learner's.
    """
    return bool(_DEFINITION.match(text)) and not (_FIRST_PERSON.search(text) or _SECOND_PERSON.search(text))


def tells_a_part_of_life(text: str) -> bool:
    """True when ``text`` tells a one-value part of the learner's life (``agent.language.about``).

    For statements without the first person: "Home is a village outside Kraków."
    """
    return about(text) != OTHER


def _clean(value: str) -> str:
    """A captured value without edge punctuation, articles or ``my``."""
    value = re.sub(r"^(?:the|a|an|my)\s+", "", value.strip(), flags=re.I)
    return value.strip(" \t.,;:!?\"'()")


def _language_in(text: str) -> str | None:
    """The first language of ``LANGUAGES`` named as a whole word in ``text``."""
    lowered = text.lower()
    for lang in LANGUAGES:
        if re.search(rf"(?<![\w+#]){re.escape(lang)}(?![\w+#])", lowered):
            if lang == "r" and not re.search(r"\b(?:in|with|my|use|for|learn)\s+r\b", lowered):
                continue  # a bare "r" is too ambiguous
            return lang
    return None


def _tool_slot(text: str) -> tuple[str, str] | None:
    """``(language or purpose or "learner", "tool")`` for editor/tool statements."""
    match = _WRITE_LANG.search(text)
    if match:
        return match.group(1).lower(), "tool"
    if _SWITCHED.search(text):
        return _language_in(text) or "learner", "tool"
    match = _USE_FOR.search(text)
    if match:
        purpose = match.group(2).lower()
        return (purpose if purpose in LANGUAGES else _language_in(text) or purpose), "tool"
    return None


NAME_SLOT = ("learner", "name")


def fact_slot(text: str) -> tuple[str, str] | None:
    """``(subject, predicate)`` of a statement in a known narrow slot, else None (see the table)."""
    if not isinstance(text, str) or not text.strip():
        return None
    if _RESIDENCE.search(text):
        return "learner", "residence"
    if _GOAL.search(text):
        return "learner", "goal"
    tool = _tool_slot(text)
    if tool is not None:
        return tool
    for pattern, predicate in ((_JOB, "job"), (_STUDY, "study"), (_LEVEL, "level")):
        if pattern.search(text):
            return "learner", predicate
    if NAMES.search(text) and not _tells_more(text):
        return NAME_SLOT
    return None


def _tells_more(text: str) -> bool:
    """True when a clause of ``text`` besides its name states a fact of its own.

    "I'm Aino, and I rent a room in Tartu": the sentence is not the name's (core memory pins the
    name from its clause, ``agent.models.offline_core``).
    """
    pieces = [p for p in PART_CUT.split(text) if p and p.strip()]
    return any(not NAMES.search(p) and standalone(p) for p in pieces[1:])


_QUERY_SLOTS = (
    ("residence", re.compile(r"\b(?:live[sd]?|living|moved|relocated|based|city|hometown)\b", re.I)),
    ("goal", re.compile(r"\b(?:goals?|aim(?:ing)?|working towards?|objective|target)\b", re.I)),
    ("tool", re.compile(r"\b(?:editor|ide|tools?|software|app|notebooks?|use[sd]?\s+(?:for|to))\b", re.I)),
    ("job", re.compile(r"\b(?:job|work(?:s|ing)? as|occupation|profession|employ(?:ed|er)?)\b", re.I)),
    ("study", re.compile(r"\b(?:stud(?:y|ies|ying)|student|major(?:ing)?|degree)\b", re.I)),
    ("level", re.compile(r"\b(?:level|beginner|intermediate|advanced|experienced?)\b", re.I)),
    ("name", re.compile(r"\bname\b", re.I)),
)


def query_slots(text: str) -> list[tuple[str | None, str]]:
    """``(subject or None, predicate)`` of each known slot a question asks about, in table order."""
    if not isinstance(text, str):
        return []
    slots: list[tuple[str | None, str]] = []
    for predicate, pattern in _QUERY_SLOTS:
        if pattern.search(text):
            slots.append((_language_in(text) if predicate == "tool" else "learner", predicate))
    return slots


def replaced_values(text: str) -> list[str]:
    """Values a statement says are no longer true ("switched from A to B" -> ``["A"]``)."""
    if not isinstance(text, str):
        return []
    values: list[str] = []
    for match in _SWITCHED.finditer(text):
        values.append(_clean(match.group(1)))
    for match in _REACHED_GOAL.finditer(text):
        topic = _clean(match.group(1))
        if topic:
            values.append(topic)
    return [v for v in dict.fromkeys(values) if v]


PART_CUT = re.compile(
    r"\s*(?:;|,\s*(?:and|but)?|\s+(?:and|but))\s+(?=(?:I|I'm|I've|I'd|my|My|we|We|our|Our)\b)"
)
"""Where a statement's next clause starts with its own first-person subject ("I'm Aino, and I rent …")."""


def standalone(part: str) -> bool:
    """A clause that is a fact of its own: it fills a slot, or states a value."""
    return fact_slot(part) is not None or (has_a_value(part) and is_fact_statement(part))


def is_fact_statement(text: str) -> bool:
    """True for a declarative statement about the learner (not a question, a request or a general truth).

    First person, a result, a value or a part of life (module docstring); without the first person
    and a part, a value the learner owns (``owns_a_value``: "Passed the B1 Dutch exam!") or an event
    told diary style with its time (``tells_own_event``: "got home on Monday, …").
    """
    if not isinstance(text, str):
        return False
    stripped = text.strip()
    if not stripped or is_question(stripped):
        return False
    if _REQUEST.search(stripped) or _EXAMPLE.match(stripped):
        return False
    if fact_slot(stripped) is not None:
        return True
    if is_definition(stripped):
        return False
    if _FIRST_PERSON.search(stripped) or _RESULT.search(stripped) or states_a_value(stripped):
        return True
    return tells_a_part_of_life(stripped) or owns_a_value(stripped) or tells_own_event(stripped)
