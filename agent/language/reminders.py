"""Reminder requests and their triggers: what to remind of, and on what turn.

**Requests** (``parse_reminder``): the request, put in the order "remind me to <task>
<condition>" by ``agent.language.reminder_requests`` (its forms are listed there), sets the
trigger:

- *concept*: "when/once/after/before we study | learn | cover | start | begin | do <concept>";
- *keywords*: a clause with any connective (when, whenever, once, as soon as, if, before,
  after, next time, the first time, the moment) and any verb: "<connective> we|I|you [ever] <verb>
  [on|to|about|…] <X>" ("when we come to verb aspect in Russian"), or "<connective> <X> comes
  up [in <context>]" (the keyword keeps its context: "generators in Python"; an adverb after
  "comes up" is no part of it: "at some point", and a time there is the topic's "not before");
  a span of the course after the topic ("this week", "this term") is no part of it either
  (``_topic_time``); "my" stays ("when I mention my viva": the learner's own thing,
  ``trigger_sense``). ``X`` may list
  several keywords ("HAVING or window functions"), any of which fires; also "<connective> the
  lesson | session | class on <X>" (unless X is a time: "the lesson on Friday"), "next lesson on
  <X>", "when it's time for <X>". "I want you to remind me" after a leading condition reads as
  "remind me";
- the condition first without a comma, before an infinitive ("remind me before we start
  graphs to ask about BFS", ``_clause_then_infinitive``);
- *time* (``due_at``, ISO-8601, from ``now``): the phrase that ends the request
  (``agent.language.reminder_times``: "tomorrow at 9", "at the start of next month", "the day
  after tomorrow");
- a time with a topic ("On June 3, when we do voice leading, remind me …", "once we reach
  derivatives next week"): the topic's trigger, not before that time (``due_at``), also when the
  condition follows the request word ("Don't let me forget: when we do X, I want to …");
- a day that opens the task ("Don't let me forget, on Monday I have to register …"): that day
  (``_opening``; a subject must follow it, so "about the 5th chapter" is no date);
- a span before an event dated in the request or the sentence before ("My exam is in three
  weeks, remind me a week before it to …"): the event's date less the span (``_before_event``);
- no condition, or one that names only a meeting ("next time we talk", "before we start next
  time", "once we meet again", ``_session_only``): a time trigger one day later
  (``DEFAULT_DELAY``), so the next session; a time it names ("before we start next week") is due.

Whether a later turn names a trigger, in its sense, is ``agent.language.trigger_sense``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from agent.clock import as_aware, system_clock
from agent.language.grammar import parse
from agent.language.reminder_requests import (
    CONCEPT,
    CONNECTIVE,
    I_WANT,
    KEYWORDS,
    LEAD_BARE,
    REQUEST,
    causative,
    declined,
    is_reminder_request,
    lead_first,
    strip_end,
    without_aside,
)
from agent.language.reminder_times import (
    BEFORE,
    opening_times,
    phrase_due,
    split_time,
    time_arrives,
    time_before_aside,
    time_due,
)
from agent.language.when import due_time
from agent.text import FUNCTION_WORDS, STOP_WORDS

DEFAULT_DELAY = timedelta(days=1)
DEFAULT_PHRASE = "in 1 day"
"""``DEFAULT_DELAY`` as a time phrase (what a store resolves against its own clock)."""
MAX_KEYWORDS = 20

# "Don't let me forget: when we do cells in biology, I want to ask …": the condition opens the text
_COND_FIRST = re.compile(
    rf"^(?P<cond>{CONNECTIVE}\s+[^,;:]+?)\s*[,;:\u2013\u2014]\s*(?P<task>.+)$", re.I | re.S
)
_TIME_FIRST = re.compile(r"^(?P<when>.+?)\s+(?P<link>to|about|that)\s+(?P<task>.+)$", re.I | re.S)
_LIST_SPLIT = re.compile(r"\s*(?:,|\bor\b|\band\b|/)\s*", re.I)
_LEADING = re.compile(
    r"^(?:(?:on|onto|into|about|with)\s+)?(?:(?:the|a|an|some|any|our)\s+)?(?:more\s+)?(?:(?:topic|subject)\s+of\s+)?",
    re.I,
)
_TRAILING = re.compile(r"\s+(?:clauses?|keywords?|part|topic|section|lesson|chapter)$", re.I)


def split_keywords(what: str) -> list[str]:
    """Keywords of a condition ("HAVING or window functions" -> ["HAVING", "window functions"])."""
    keywords = []
    for part in _LIST_SPLIT.split(strip_end(what)):
        part = _without_adverb(_TRAILING.sub("", _LEADING.sub("", part.strip().strip("`'\""))))
        if part and is_trigger_word(part) and part not in keywords:
            keywords.append(part)
    return keywords[:MAX_KEYWORDS]


def _without_adverb(part: str) -> str:
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


def _course_time(where: str) -> bool:
    """True when a trigger's "in …" names a span of time (a date or a course's lessons), not a subject.

    "in the next few lessons", "during the course", "in the coming weeks" leave the topic as it is;
    "in Python", "in biology" are the sense the learner gave it. A context of time read into the
    keyword compares the turn with the time, not the topic ("moles in the next few lessons" reads
    the garden's moles like the chemistry).
    """
    nouns = [t for t in parse(strip_end(where)) if t.pos_ == "NOUN"]
    return any(t.ent_type_ in {"DATE", "TIME"} or t.lemma_.lower() in _COURSE_SPANS for t in nouns)


_SPAN_START = re.compile(r"\s+(?=(?:this|that|during|over|within|sometime|later)\b)", re.I)


def _topic_time(what: str, now: datetime) -> tuple[str, str | None]:
    """A trigger's topic and its time (``split_time``), without a span of the course after it.

    "photosynthesis this term", "hash maps later this semester": the span says when, not what
    (``_course_time``); left in the topic, its words had to be named for the reminder to fire.
    """
    topic, when = split_time(without_aside(what), now)
    if when is None:
        for cut in _SPAN_START.finditer(topic):
            if cut.start() and _course_time(topic[cut.start() :]):
                return strip_end(topic[: cut.start()]), None
    return topic, when


_SESSION_NOUNS = _COURSE_SPANS | {"time", "meeting", "chat", "call"}
"""Nouns that name a meeting of learner and tutor, not a topic ("next time", "the next session")."""


def _session_only(what: str, now: datetime) -> bool:
    """True when a condition's object names only a meeting or a time ("next time", "next session").

    "before we start next time" names no topic: read as a topic, "next time" had to be said for
    the reminder to fire. "the lesson on recursion" names one (its noun "recursion"), and so does
    a meeting's noun without a determiner ("when we talk about classes").
    """
    words = [t for t in parse(strip_end(what)) if not (t.is_stop or t.is_punct)]
    # a meeting is its noun with a determiner or "next": bare, "classes" is a topic; every other
    # word, of any tag ("eigenvalues" may parse as a verb), is one too
    return bool(words) and all(t.lemma_.lower() in _SESSION_NOUNS and t.n_lefts for t in words)


def _only_pronouns(what: str) -> bool:
    """True when a condition's object is pronouns only ("it", "that"): it points at nothing said."""
    words = [t for t in parse(strip_end(what)) if not t.is_punct]
    return bool(words) and all(t.pos_ == "PRON" for t in words)


_PERSONAL = frozenset({"he", "him", "she", "her", "they", "them"})


def _antecedent(task: str, condition: str) -> str | None:
    """The one name in ``task`` a condition of a personal pronoun points at, or None.

    "remind me to ask Ingrid for her notes whenever I mention her": the trigger is Ingrid. Only a
    person pronoun (not "it"), and only when the task writes exactly one capitalised proper name.
    """
    if not {t.lower_ for t in parse(strip_end(condition))} & _PERSONAL:
        return None
    names = {t.text for t in parse(task) if t.pos_ == "PROPN" and t.is_title and t.i > 0}
    return names.pop() if len(names) == 1 else None


def _not_before(when: str | None, now: datetime) -> dict[str, Any]:
    """A topic trigger's date ("when we do X on Friday"): it does not fire before (``due_at``)."""
    due = phrase_due(when, now) if when else None
    return {"due_at": due.isoformat(), "when": when} if due is not None else {}


_LEARNER_BRINGS = re.compile(rf"\s*,?\s+{CONNECTIVE}\s+I\s", re.I)
"""A condition the learner meets by speaking ("when I bring up the interview", "when I mention the
bridge project"): the thing is the learner's own, and telling when it is ("my interview is next
Thursday") brings it up (``trigger_sense``: the keyword keeps "my"). Read as a lesson's topic, such
a turn placed it in a plan and never met the trigger (heldout18)."""


def _trigger(rest: str, now: datetime) -> tuple[str, dict[str, Any]] | None:
    """``(the task, the trigger fields)`` of a request's text after "remind me to"."""
    arrives = time_arrives(rest, now)
    if arrives is not None:  # "once June starts": a time, from its first day
        task, due, phrase = arrives
        return task, {"trigger_kind": "time", "due_at": due.isoformat(), "when": phrase}
    concept, keywords = _last(CONCEPT, rest), _last(KEYWORDS, rest)
    if keywords and keywords["what3"] and due_time(keywords["what3"], now) is not None:
        keywords = None  # "before the lesson on Monday" names a time, not a topic
    clause = concept if concept and (keywords is None or concept.start() >= keywords.start()) else keywords
    if clause is not None and _session_only(next(k for k in clause.groupdict().values() if k), now):
        # "before we start next time", "once we meet next session": no topic, so the next session
        # (the one-day default, or the time the clause names) and the clause is no part of the task
        said = next(k for k in clause.groupdict().values() if k)
        rest, concept, keywords = rest[: clause.start()], None, None
        due = phrase_due(strip_end(said), now)
        if due is not None:  # "before we start next week"
            return rest, {"trigger_kind": "time", "due_at": due.isoformat(), "when": strip_end(said)}
    if concept and (keywords is None or concept.start() >= keywords.start()):
        topic, when = _topic_time(concept["what"], now)
        what = _without_adverb(_TRAILING.sub("", _LEADING.sub("", topic)))
        fields = {"trigger_kind": "concept", "concept": what, "keywords": split_keywords(what)}
        return rest[: concept.start()], {**fields, **_not_before(when, now)}
    if keywords:
        topic, when = _topic_time(
            _past_adverb(keywords) or next(k for k in keywords.group("what", "what2", "what3", "what4") if k),
            now,
        )
        after = (keywords["after"] or "").strip()
        if when is None and after and phrase_due(after, now) is not None:
            when = after  # "if X comes up next week": the time after "comes up" ("at some point" is none)
        found = split_keywords(topic)
        if len(found) == 1 and _LEARNER_BRINGS.match(keywords.group(0)) and topic.lower().startswith("the "):
            found = [f"my {found[0]}"]  # "when I bring up the interview again": the learner's own thing
        if keywords["where"] and not _course_time(keywords["where"]):
            # "if generators come up in Python": the trigger as the learner said it
            found = [f"{k} {strip_end(keywords['where'])}" for k in found]
        fields = {"trigger_kind": "keywords", "keywords": found, **_not_before(when, now)}
        if found:
            return rest[: keywords.start()], fields
        named = _antecedent(rest[: keywords.start()], topic) if _only_pronouns(topic) else None
        if named:  # "remind me to thank Kwame when I mention him": the person the task names
            return rest[: keywords.start()], {**fields, "keywords": [named]}
        if _only_pronouns(topic):
            return None  # "when we get to it": a topic the request never named, so no trigger to wait for
        rest = rest[: keywords.start()]  # "when we meet again": no topic, the next session (below)
    timed = time_due(rest, now)
    if timed:
        task, due = timed
        phrase = strip_end(rest[len(task) :])
    else:  # "on the 14th, that's when my salary comes in": a remark after the time phrase
        task, due, phrase = time_before_aside(rest, now) or _opening(rest, now) or _default(rest, now)
    return task, {"trigger_kind": "time", "due_at": due.isoformat(), "when": phrase}


def _past_adverb(keywords: re.Match[str]) -> str | None:
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


def _last(pattern: re.Pattern[str], rest: str) -> re.Match[str] | None:
    """The last condition of ``pattern`` in ``rest``: the request's own, put at its end.

    A condition that opened the request is moved after the task ("remind me to <task> <condition>",
    ``reminder_requests``), so a connective inside the task ("ask about X after you explain the
    basics, our professor loves it") comes first; read from there, the task's clause and the
    learner's aside became the trigger and the topic was never waited for.
    """
    found, at = None, 0
    while (match := pattern.search(rest, at)) is not None:
        # the next search starts at the topic, so "the next time" is one connective, not two
        topic = min(match.start(g) for g, v in match.groupdict().items() if v and g.startswith("what"))
        found, at = match, max(topic, match.start() + 1)
    return found


def _opening(rest: str, now: datetime) -> tuple[str, datetime, str] | None:
    """``(task, due, phrase)`` of a task that opens with its time: "on Monday I have to register …".

    Read only when no time ends the request; the time must open a clause of its own (a subject
    follows it), so "about the 5th chapter" is no date. Read as no time at all, "Don't let me
    forget, on Monday I have to register" fell to the one-day default and fired days early.
    """
    for phrase in opening_times(rest, now):
        due = phrase_due(phrase, now)
        if due is not None and any(t.dep_ in {"nsubj", "nsubjpass"} for t in parse(rest[len(phrase) :])):
            return rest, due, phrase
    return None


def _clause_then_infinitive(rest: str) -> tuple[str, str] | None:
    """``(condition, task)`` of "before we start graphs to ask about BFS": no comma between them.

    The condition is a clause (it has a subject); the task starts at the first infinitive after
    it, "to" then a bare verb, so "when we get to recursion to review the stack" splits at
    "to review", not at "to recursion".
    """
    if not LEAD_BARE.match(rest):
        return None
    doc = parse(rest)
    if not any(t.dep_ in {"nsubj", "nsubjpass"} for t in doc):
        return None  # "before Friday to pay the fee": a time, read by _TIME_FIRST
    for tok in doc[2:-1]:
        if tok.tag_ == "TO" and doc[tok.i + 1].tag_ == "VB":
            # "when we do X I want to ask …": the task starts at the subject of the verb the
            # infinitive hangs on, not at "to" (read from "to", "X I want" was the topic)
            wants = [s for s in doc[tok.i + 1].head.children if s.dep_ == "nsubj" and 2 < s.i < tok.i]
            at = wants[0].left_edge.idx if wants and doc[tok.i + 1].head.i < tok.i else tok.idx
            return rest[:at], rest[at:]
    return None


def _default(rest: str, now: datetime) -> tuple[str, datetime, str]:
    """No time named: the one-day default (``DEFAULT_PHRASE``)."""
    return rest, phrase_due(DEFAULT_PHRASE, now) or now + DEFAULT_DELAY, DEFAULT_PHRASE


_SAME_DAY = re.compile(r"(?<=\s)(?:on\s+)?(?:that(?:\s+same)?|the\s+same)\s+day\b", re.I)
"""The day of the event the sentence dates ("X opens on 12 May, remind me that day to …"): a span of none."""
_LEAD_TAIL = re.compile(r"(?:[\s,;:.\u2013\u2014-]|\b(?:so|and|please|then)\b)+$", re.I)
_EVENT = re.compile(r"\s+(?:it|that|then|(?:my|the|our|this)\s+[^\W\d_]+)\b", re.I)


def _before_event(text: str, now: datetime | None) -> dict[str, Any] | None:
    """A request for a span before an event whose date the sentence tells ("remind me two days before").

    "That day" is a span of none: the event's own date ("the fair opens on 3 May, remind me that
    day to go"); read as any request, "that day" was the task's and the one-day default fired early.

    "My exam is in three weeks, remind me a week before it to book a room", "Remind me the day
    before my interview on Friday to iron my shirt": read without the span and the event's name
    ("it", "my interview"), the request is due at the event's date; the span comes off it
    (``reminder_times.phrase_due`` reads "a week before in three weeks" as the store will).
    Without a date in the sentence it is read as any request.
    """
    span = BEFORE.search(text) or _SAME_DAY.search(text)
    if span is None or not is_reminder_request(text):
        return None
    event = _EVENT.match(text, span.end())
    rest = text[: span.start()] + text[event.end() if event else span.end() :]
    read = parse_reminder(re.sub(r"\s{2,}", " ", rest), now=now)
    if read is None or read["trigger_kind"] != "time":
        return None
    request = REQUEST.search(text)
    if request is not None and 0 < request.start() < span.start():
        # "My exam is in three weeks, remind me a week before it to book a room": the task is the
        # request's own; read whole, the event's clause joined it ("book a room My exam is").
        own = parse_reminder(re.sub(r"\s{2,}", " ", rest[request.start() :]), now=now)
        if own is None:  # "My test is in 10 days. Remind me 2 days before.": the event is the task
            event_clause = _LEAD_TAIL.sub("", text[: request.start()]).strip()
            own = {"description": event_clause, "action": f"Remind the learner: {event_clause}"}
        read = {**read, "description": own["description"], "action": own["action"]}
    clock = as_aware(now or system_clock())
    event_when = read["when"]
    if event_when in (None, DEFAULT_PHRASE):  # "my viva is in a month; remind me …": the date before
        request = REQUEST.search(text)
        lead = _LEAD_TAIL.sub("", text[: request.start()]) if request else ""
        # the longest ending of the event's clause that reads as a time ("September 30", "in a month")
        starts = [m.end() for m in re.finditer(r"\s+", lead)]
        event_when = next((lead[i:] for i in starts if phrase_due(lead[i:], clock) is not None), None)
    when = f"{span['span']} {event_when}" if event_when and span.re is BEFORE else event_when
    due = phrase_due(when, clock) if when else None
    return {**read, "due_at": due.isoformat(), "when": when} if due is not None else None


def parse_reminder(text: str, *, now: datetime | None = None, context: str = "") -> dict[str, Any] | None:
    """The reminder a request asks for (``ReminderStore.set`` arguments plus ``trigger_kind``), or None.

    Keys: description, action, trigger_kind, keywords, concept, due_at (ISO as of ``now``, or None)
    and, for a time trigger, ``when``: the time phrase itself ("the day after tomorrow"), for a
    store to resolve against the session's clock (``ReminderStore.set``). ``context`` is the
    sentence before, read only for the date of an event a span is "before" ("My test is in 10
    days. Remind me 2 days before.").
    """
    if not isinstance(text, str) or declined(text):
        return None  # "no need to remind me about X": a reminder declined
    before = _before_event(text, now) or (
        _before_event(f"{context.strip()} {text}", now) if context else None
    )
    if before is not None:
        return before
    match = REQUEST.search(lead_first(causative(text)))
    if match is None:
        return None
    now = as_aware(now or system_clock())
    rest, link = strip_end(match["rest"]), match["link"]
    first = _COND_FIRST.match(rest)
    split = (first["cond"], first["task"]) if first else _clause_then_infinitive(rest)
    if split:  # the condition before the task: read as "<task> <condition>"
        task = re.match(r"^(?:(?P<link>to|that|about)\s+)?(?P<task>.+)$", split[1].strip(), re.I | re.S)
        rest, link = f"{I_WANT.sub('', task['task'])} {split[0].strip()}", link or task["link"]
    inner = _TIME_FIRST.match(rest) if link is None else None
    due = phrase_due(inner["when"], now) if inner else None
    if inner and due is not None:  # "remind me next Monday to register": the time before the task
        when = {"trigger_kind": "time", "due_at": due.isoformat(), "when": inner["when"].strip()}
        read: tuple[str, dict[str, Any]] | None = (inner["task"], when)
        link = inner["link"]
    else:
        read = _trigger(rest, now)
    if read is None:
        return None
    description = strip_end(read[0])
    if not any(w.lower() not in FUNCTION_WORDS for w in re.findall(r"[^\W_]+", description)):
        return None  # "remind me to" with nothing to do
    link = (link or "to").lower()
    out: dict[str, Any] = {"keywords": [], "concept": None, "due_at": None, "when": None, **read[1]}
    return {**out, "description": description, "action": f"Remind the learner {link} {description}"}
