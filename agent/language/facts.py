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
(``agent.language.differences.states_a_value``), so an update told by an event or by
someone else ("The professor postponed the final by a week", "Retook IELTS writing and it
came back 7.0") is remembered too; or tells a part of the learner's life without the first
person ("Home is a village outside Kraków.", ``agent.language.about``), or a value of the
learner's with the subject left out or changed by others ("Passed the B1 Dutch exam!", "They
brought the final forward three days": ``owns_a_value``, a classifier over
``agent.language.own_values``). A general truth in a definition's shape ("A prime number has
exactly two divisors, 1 and itself.") is none.

What one sentence stores: ``stated_part`` is the statement a question carries before its
question clause ("Moved to Rotterdam last week so which Dutch course …?"), ``fact_parts`` the
clauses of a statement that fill different slots ("I'm Aino, and I rent a room in Tartu": a
name and a home, not the whole in the name slot). Measured by ``python -m bench.fact_write_knobs``.

The same-thing reader for statements outside these slots is ``agent.language.same_thing``;
the fact store applies both (``agent.memory.facts``).
"""

from __future__ import annotations

import re

from agent.language.about import CLAUSE_WORDS, OTHER, about
from agent.language.current_values import maybe
from agent.language.differences import states_a_value
from agent.language.own_values import has_a_value, owns_a_value
from agent.language.questions import AUXILIARY, is_question
from agent.language.whose_value import LEARNER, clause_owners, learners_now

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
    pieces = [p for p in _PART_CUT.split(text) if p and p.strip()]
    return any(not NAMES.search(p) and _standalone(p) for p in pieces[1:])


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


_CONDITION = re.compile(r"^\W*(?:if|unless|in case|suppose|supposing|assuming|whether|what if|say)\b", re.I)
"""A clause that supposes ("If I switch to Linux, can I …?"): nothing it says is the learner's."""
_ASK_CUT = re.compile(
    r"\s*(?:[:;]-?[()DPp/|]+(?=\s)|[,;:\u2013\u2014]|\s-\s|\.\.\.)\s*|\s+(?=(?:so|but|and|anyway|now)\s)",
    re.I,
)
"""Where a question clause may start inside one sentence: punctuation (with an emoticon's mouth,
":(") or a connective ("… so can we talk about dbt?")."""
_OPENER = re.compile(
    r"^(?:\W+|(?:so|but|and|anyway|now|then|also|ok|okay|please|quick question|one thing)\b[,:]?\s*)+", re.I
)
"""What goes before a question clause's first word: punctuation, a connective."""
_PART_CUT = re.compile(
    r"\s*(?:;|,\s*(?:and|but)?|\s+(?:and|but))\s+(?=(?:I|I'm|I've|I'd|my|My|we|We|our|Our)\b)"
)
"""Where a statement's next clause starts with its own first-person subject ("I'm Aino, and I rent …")."""


_BECAUSE = re.compile(r",?\s+(?:since|because|now that|given that)\s+", re.I)
"""Where a question gives its reason ("Can we do coroutines, since my team moved to Kotlin?")."""


def _opens_question(clause: str) -> bool:
    """True when ``clause``, past its connectives, opens a question.

    A question word or an inverted auxiliary (``questions.is_question``); at the end of a sentence
    that asks with ``?``, any auxiliary first ("but is spaced repetition still possible there?").
    """
    body = _OPENER.sub("", clause).rstrip(" ?")
    if not body:
        return False
    return is_question(body) or (clause.rstrip().endswith("?") and AUXILIARY.match(body) is not None)


def _stated(clause: str) -> str | None:
    """``clause`` when it states a fact of the learner's and supposes nothing, else None.

    A fact with a value or a part of the learner's life ("Switched my major to statistics").
    """
    clause = clause.strip().rstrip("?").strip()
    if (
        len(clause.split()) < CLAUSE_WORDS
        or _CONDITION.match(clause)
        or not (has_a_value(clause) or tells_a_part_of_life(clause))
        or not is_fact_statement(clause)
        or not learners_now(clause)
    ):
        return None
    return clause


def stated_part(text: str) -> str | None:
    """The statement a question carries before its question clause, when it is a fact with a value.

    "Results came this morning: 6.5 in writing, so close :( what should I focus on?" ->
    "Results came this morning: 6.5 in writing, so close"; "Since I moved to Oslo, how …?" ->
    "Since I moved to Oslo"; after it, its reason ("Can we do coroutines, since my team moved
    to Kotlin?" -> "my team moved to Kotlin"). Not a supposition ("If I switch to Linux, can I
    …?"), not a clause that names no value ("I'm confused, what does yield do?").
    """
    if not isinstance(text, str) or not is_question(text):
        return None
    for cut in _ASK_CUT.finditer(text):
        head, tail = text[: cut.start()].strip(), text[cut.end() :].strip()
        if head and _opens_question(tail):
            return _stated(head)
    reason = _BECAUSE.search(text)
    if reason is not None and _opens_question(text[: reason.start()] + "?"):
        return _stated(text[reason.end() :])
    return None


def _standalone(part: str) -> bool:
    """A clause that is a fact of its own: it fills a slot, or states a value."""
    return fact_slot(part) is not None or (has_a_value(part) and is_fact_statement(part))


def now_part(text: str) -> str:
    """``text`` without its clauses that are no value the learner has now ("" when none is one).

    A plan, wish, offer or hedge (``agent.language.current_values``), or another person's value
    (``agent.language.whose_value``), cut where a clause starts with its own subject ("My stipend is
    500 euros a month; my flatmate gets 650 because she's in medicine" -> "My stipend is 500 euros a
    month"; "Did another 9 this week, my colleague Rui finished all 40" -> "Did another 9 this week").
    """
    if maybe(text):
        return ""  # an offer hedged in a later clause ("…offered me a room in Porto, I won't take it")
    pieces: list[tuple[str, bool]] = []  # each clause, and whether it is the learner's now
    at = 0
    for cut in [*_PART_CUT.finditer(text), None]:
        end = len(text) if cut is None else cut.start()
        # "…, my colleague Rui finished all 40": a clause of another's, read in its sentence
        pieces += [(p, owner == LEARNER and not maybe(p)) for p, owner in clause_owners(text[at:end].strip())]
        at = end if cut is None else cut.end()
    kept = [p for p, now in pieces if p and now]
    if len(kept) == len([p for p, _ in pieces if p]):
        return text
    # what is left must be a statement of its own ("Funny thing" of "Funny thing, my dad trades …" is none)
    return "; ".join(p for p in kept if len(p.split()) >= CLAUSE_WORDS and is_fact_statement(p))


def fact_parts(text: str) -> list[str]:
    """``text`` as the facts it states: its first-person clauses when they fill different slots.

    "I live in Quito and I work as a guide" -> a home and a job; else ``[text]``. A clause that is
    no fact of its own (no slot, no value: "… and I love it"; a greeting: "Hi, I'm Sofia") stays
    with the clause before it. Split only when every clause fills a slot: "My rating is 1430, and
    I'm studying endgames to get past 1500" stays whole (its target and its value are one fact),
    and so does "I'm Aino, and I rent a room in Tartu", whose slot is then not the name's
    (``fact_slot``): a search for "Which city does Aino live in?" finds both in one fact.
    """
    if not isinstance(text, str):
        return [text]
    text = now_part(text)
    if not text:
        return []
    spans: list[list[int]] = []  # [start, end] of each part in ``text``
    at = 0
    for cut in [*_PART_CUT.finditer(text), None]:
        end = len(text) if cut is None else cut.start()
        piece = text[at:end].strip()
        previous = text[spans[-1][0] : spans[-1][1]] if spans else ""
        short = len(previous.split()) < CLAUSE_WORDS and fact_slot(previous) is None
        if spans and (short or not _standalone(piece)):
            spans[-1][1] = end
        elif piece:
            spans.append([at, end])
        at = end if cut is None else cut.end()
    parts = [text[a:b].strip() for a, b in spans]
    slots = [fact_slot(p) for p in parts]
    if len(parts) < 2 or len(set(slots)) < 2 or None in slots or NAME_SLOT in slots:
        return [text]  # a value beside a clause in a slot, or a name, stays with it (docstring)
    return parts


def is_fact_statement(text: str) -> bool:
    """True for a declarative statement about the learner (not a question, a request or a general truth).

    First person, a result, a value or a part of life (module docstring); without the first person
    and a part, a value the learner owns (``owns_a_value``: "Passed the B1 Dutch exam!").
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
    return tells_a_part_of_life(stripped) or owns_a_value(stripped)
