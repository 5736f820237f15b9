"""The topic of a reminder's trigger clause: the keywords it names, and what in it is no topic.

``agent.language.reminders`` reads the ``X`` of a condition ("when we come to <X>", "if <X> comes
up") here:

- **keywords** (``split_keywords``): ``X`` may list several keywords ("HAVING or window
  functions"), any of which fires; a keyword of stop words only is none (``is_trigger_word``: it
  would fire on every turn), and the stop-word adverbs that close one are no part of it
  (``without_adverb``: "the internship again");
- **a time** (``topic_time``): a span of the course after the topic ("this week", "this term") is no
  part of it, nor is an "in …" that names one (``course_time``: "in the next few lessons");
- **no topic**: a meeting only ("next time", "the next session": ``session_only``), pronouns only
  ("when we get to it": ``only_pronouns``), or a person pronoun that points at the one name the
  task writes (``antecedent``: "remind me to thank Kwame when I mention him");
- **an adverb before the verb** (``past_adverb``): "when I next mention my cello" is about "my cello".
"""

from __future__ import annotations

import re
from datetime import datetime

from agent.language.grammar import parse
from agent.language.reminder_requests import strip_end, without_aside
from agent.language.reminder_times import split_time
from agent.text import STOP_WORDS

MAX_KEYWORDS = 20
_LIST_SPLIT = re.compile(r"\s*(?:,|\bor\b|\band\b|/)\s*", re.I)
LEADING = re.compile(
    r"^(?:(?:on|onto|into|about|with)\s+)?(?:(?:the|a|an|some|any|our)\s+)?(?:more\s+)?(?:(?:topic|subject)\s+of\s+)?",
    re.I,
)
TRAILING = re.compile(r"\s+(?:clauses?|keywords?|part|topic|section|lesson|chapter)$", re.I)


def split_keywords(what: str) -> list[str]:
    """Keywords of a condition ("HAVING or window functions" -> ["HAVING", "window functions"])."""
    keywords = []
    for part in _LIST_SPLIT.split(strip_end(what)):
        part = without_adverb(TRAILING.sub("", LEADING.sub("", part.strip().strip("`'\""))))
        if part and is_trigger_word(part) and part not in keywords:
            keywords.append(part)
    return keywords[:MAX_KEYWORDS]


def without_adverb(part: str) -> str:
    """A keyword without the stop-word adverbs that close it: "the internship again", "CV anyway".

    They say that the topic comes back, not what it is; left in the keyword, the turn was compared
    with "internship again" and had to name "again". An adverb of content stays ("differentiating
    implicitly" is its own topic).
    """
    words = list(parse(part))
    while len(words) > 1 and words[-1].pos_ == "ADV" and words[-1].is_stop:
        words.pop()
    return part[: words[-1].idx + len(words[-1].text)] if words else part


def is_trigger_word(keyword: str) -> bool:
    """False for keywords made only of stop words (they would fire on every turn)."""
    words = re.findall(r"[^\W_]+", keyword)
    return any(w.isupper() and len(w) > 1 or w.lower() not in STOP_WORDS for w in words)


_COURSE_SPANS = frozenset(
    {"lesson", "session", "class", "week", "month", "day", "term", "semester", "course", "future"}
)
"""Spans of a course's time: "if moles come up in the next few lessons" says when, not in what."""


def course_time(where: str) -> bool:
    """True when a trigger's "in …" names a span of time (a date or a course's lessons), not a subject.

    "in the next few lessons", "during the course", "in the coming weeks" leave the topic as it is;
    "in Python", "in biology" are the sense the learner gave it. A context of time read into the
    keyword compares the turn with the time, not the topic ("moles in the next few lessons" reads
    the garden's moles like the chemistry).
    """
    nouns = [t for t in parse(strip_end(where)) if t.pos_ == "NOUN"]
    return any(t.ent_type_ in {"DATE", "TIME"} or t.lemma_.lower() in _COURSE_SPANS for t in nouns)


_SPAN_START = re.compile(r"\s+(?=(?:this|that|during|over|within|sometime|later)\b)", re.I)


def topic_time(what: str, now: datetime) -> tuple[str, str | None]:
    """A trigger's topic and its time (``split_time``), without a span of the course after it.

    "photosynthesis this term", "hash maps later this semester": the span says when, not what
    (``course_time``); left in the topic, its words had to be named for the reminder to fire.
    """
    topic, when = split_time(without_aside(what), now)
    if when is None:
        for cut in _SPAN_START.finditer(topic):
            if cut.start() and course_time(topic[cut.start() :]):
                return strip_end(topic[: cut.start()]), None
    return topic, when


_SESSION_NOUNS = _COURSE_SPANS | {"time", "meeting", "chat", "call"}
"""Nouns that name a meeting of learner and tutor, not a topic ("next time", "the next session")."""


def session_only(what: str, now: datetime) -> bool:
    """True when a condition's object names only a meeting or a time ("next time", "next session").

    "before we start next time" names no topic: read as a topic, "next time" had to be said for
    the reminder to fire. "the lesson on recursion" names one (its noun "recursion"), and so does
    a meeting's noun without a determiner ("when we talk about classes").
    """
    words = [t for t in parse(strip_end(what)) if not (t.is_stop or t.is_punct)]
    # a meeting is its noun with a determiner or "next": bare, "classes" is a topic; every other
    # word, of any tag ("eigenvalues" may parse as a verb), is one too
    return bool(words) and all(t.lemma_.lower() in _SESSION_NOUNS and t.n_lefts for t in words)


def only_pronouns(what: str) -> bool:
    """True when a condition's object is pronouns only ("it", "that"): it points at nothing said."""
    words = [t for t in parse(strip_end(what)) if not t.is_punct]
    return bool(words) and all(t.pos_ == "PRON" for t in words)


_PERSONAL = frozenset({"he", "him", "she", "her", "they", "them"})


def antecedent(task: str, condition: str) -> str | None:
    """The one name in ``task`` a condition of a personal pronoun points at, or None.

    "remind me to ask Ingrid for her notes whenever I mention her": the trigger is Ingrid. Only a
    person pronoun (not "it"), and only when the task writes exactly one capitalised proper name.
    """
    if not {t.lower_ for t in parse(strip_end(condition))} & _PERSONAL:
        return None
    names = {t.text for t in parse(task) if t.pos_ == "PROPN" and t.is_title and t.i > 0}
    return names.pop() if len(names) == 1 else None


def past_adverb(keywords: re.Match[str]) -> str | None:
    """The object of a condition whose verb follows an adverb ("when I next mention my cello").

    ``KEYWORDS`` takes the word after the subject as the verb; when the parse says that word is an
    adverb of the verb after it ("next", "ever", "finally", "first"), the topic starts after that
    verb and its prepositions ("when we ever get to X": X). Read as written, "mention my cello" was
    the keyword and a turn about the cello never said "mention".
    """
    what = keywords["what"]
    if not what:
        return None
    clause = keywords.group(0).lstrip(" ,")
    doc = parse(clause)
    at = keywords.start("what") - (keywords.end() - len(clause))
    verb = next((t for t in doc if t.idx == at), None)
    # the word before modifies it: the small parser may tag "next" ADJ and "talk" NOUN, but after
    # a subject pronoun the word it modifies is the verb
    if verb is None or verb.i == 0 or doc[verb.i - 1].head.i != verb.i:
        return None
    if doc[verb.i - 1].dep_ not in {"advmod", "amod"}:
        return None
    rest = list(doc[verb.i + 1 :])
    while rest and rest[0].pos_ in {"ADP", "PART"} and rest[0].head.i == verb.i:
        rest = rest[1:]  # "get to", "come back to": the verb's particles, no part of the topic
    return clause[rest[0].idx :] if rest else None
