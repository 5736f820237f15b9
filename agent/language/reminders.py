"""Reminder requests and their triggers: what to remind of, and on what turn.

**Requests** (``parse_reminder``): "remind me to <task> <condition>", also "remind me about /
that …", "don't let me forget / skip / miss …", "make sure I remember …", "ping / nudge me about …",
"I need a reminder to …", "give me a heads-up about …", "jog my memory about …", "bug / poke me
about …"; with a condition, a request to be made to do something ("When we reach X, make me tell
you …", "get me to ask …", "have me show you …", "make sure I ask …", ``_causative``). The
condition may stand first: "Before we start recursion, remind me to …", "Tomorrow, remind me
to …" are read as "remind me to … before we start recursion" (``_lead_first``); discourse words
before a leading time are no condition ("Oh and on Thursday remind me …", "By the way, on Friday
remind me …": the time is Thursday's, not the one-day default's). It sets the
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
- learners' forms: "remember me that/to …", the condition first without a comma ("when we
  cover the past tense remember me that …"), the request last ("I want to revisit X once we
  reach Y, so please remind me then" reads as "remind me to revisit X once we reach Y");
- *time* (``due_at``, ISO-8601, from ``now``): the phrase that ends the request
  (``agent.language.reminder_times``: "tomorrow at 9", "at the start of next month", "the day
  after tomorrow");
- a time with a topic ("On June 3, when we do voice leading, remind me …", "once we reach
  derivatives next week"): the topic's trigger, not before that time (``due_at``), also when the
  condition follows the request word ("Don't let me forget: when we do X, I want to …");
- a day that opens the task ("Don't let me forget, on Monday I have to register …"): that day
  (``_opening``; a subject must follow it, so "about the 5th chapter" is no date);
- no condition: a time trigger one day later (``DEFAULT_DELAY``).

Whether a later turn names a trigger, in its sense, is ``agent.language.trigger_sense``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from agent.clock import as_aware, system_clock
from agent.language.grammar import parse
from agent.language.reminder_times import (
    BEFORE,
    leading_time,
    opening_times,
    phrase_due,
    split_time,
    time_before_aside,
    time_due,
)
from agent.language.when import due_time
from agent.text import FUNCTION_WORDS, STOP_WORDS

DEFAULT_DELAY = timedelta(days=1)
DEFAULT_PHRASE = "in 1 day"
"""``DEFAULT_DELAY`` as a time phrase (what a store resolves against its own clock)."""
MAX_KEYWORDS = 20

_REQUEST = re.compile(
    r"(?:remind\s+me|(?:do\s+not|don't|dont)\s+let\s+me\s+(?:forget|skip|miss)|make\s+sure\s+I\s+(?:remember|don't\s+forget)"
    r"|(?:ping|nudge|prompt|bug|poke)\s+me|I(?:'d)?\s+(?:need|like|want)\s+a\s+reminder"
    r"|give\s+me\s+a\s+heads[- ]up"
    r"|jog\s+my\s+memory|remember\s+me(?=\s+(?:to|that|about|of)\s))\s*[:;,\u2013\u2014-]?\s+(?:later\s+)?(?:(?P<link>to|about|that|of)\s+)?(?P<rest>.+)",
    re.I | re.S,
)
_CONNECTIVE = (
    r"(?:when(?:ever)?|once|if|as\s+soon\s+as|before|after|(?:the\s+)?(?:next|first)\s+time|the\s+moment)"
)
_LEAD = re.compile(rf"^\s*(?P<cond>{_CONNECTIVE}\s+[^,]+?|[^,]{{1,40}}?),\s*(?P<rest>.+)$", re.I | re.S)
# "I want to revisit X once we reach Y, so please remind me then.": the request closes the sentence
_REQUEST_LAST = re.compile(
    r"^(?P<task>.+?)\s*[,;]?\s+(?:so\s+|and\s+)?(?:please\s+)?(?:can\s+you\s+|could\s+you\s+)?"
    r"(?:remind\s+me|ping\s+me|nudge\s+me)(?:\s+(?:then|of\s+(?:it|that|this)|about\s+(?:it|that|this)"
    r"|at\s+that\s+point))?(?:\s+please)?\s*[.!?]*\s*$",
    re.I | re.S,
)
# "make me tell you …", "get me to ask …", "make sure I ask …": the learner asks to be made to do
# something; a request only with a condition ("When we get to X, make me …"): without one it is
# an ordinary ask ("make me a cheat sheet", "get me to understand pointers")
_CAUSATIVE = re.compile(
    r"^(?P<lead>.*?)\b(?:(?:make|have)\s+me|(?:get|tell)\s+me\s+to|make\s+sure\s+I)\s+(?P<task>[^\W\d_]+\b.*)$",
    re.I | re.S,
)
_I_WANT = re.compile(r"^I(?:\s+(?:want|need|would\s+like)|'d\s+like)\s+to\s+", re.I)
# "Don't let me forget: when we do cells in biology, I want to ask …": the condition opens the text
_COND_FIRST = re.compile(
    rf"^(?P<cond>{_CONNECTIVE}\s+[^,;:]+?)\s*[,;:\u2013\u2014]\s*(?P<task>.+)$", re.I | re.S
)
_LEAD_BARE = re.compile(rf"^(?P<cond>{_CONNECTIVE}\s+.+)$", re.I | re.S)
_TIME_FIRST = re.compile(r"^(?P<when>.+?)\s+(?P<link>to|about|that)\s+(?P<task>.+)$", re.I | re.S)
_POLITE = re.compile(
    r"^\s*(?:please|can\s+you|could\s+you|would\s+you|will\s+you|and|so"
    r"|I(?:\s+(?:want|need)|'d\s+like|\s+would\s+like)\s+you\s+to)\s+",
    re.I,
)
_WE = r"(?:we|I|you)(?:\s*'re|\s+are|\s+am|\s*'m)?"
_CONCEPT = re.compile(
    rf"\s*,?\s+(?:when|once|after|before)\s+{_WE}\s+(?:start(?:ing)?\s+|begin(?:ning)?\s+)?"
    r"(?:study(?:ing)?|learn(?:ing)?|cover(?:ing)?|start(?:ing)?|begin(?:ning)?|do(?:ing)?)\s+"
    r"(?P<what>.+)$",
    re.I | re.S,
)
_KEYWORDS = re.compile(
    rf"\s*,?\s+{_CONNECTIVE}\s+{_WE}\s+(?:ever\s+|finally\s+|first\s+)?(?!comes?\s+up\b)[^\W\d_]+"
    r"(?:\s+(?:on|onto|to|into|about|with|at|over|through|up|around|back))*\s+(?P<what>.+)$"
    rf"|\s*,?\s+{_CONNECTIVE}\s+(?P<what2>.+?)\s+(?:comes?|is|are)\s+(?:up|discussed|covered|next)"
    r"(?P<after>\s+(?!(?:in|with|during)\b)[^,]+?)?(?:\s+(?P<where>(?:in|with|during)\s+[^,]+?))?"
    r"(?:\s+(?:again|later|next|at\s+last))?\s*$"
    rf"|\s*,?\s+(?:{_CONNECTIVE}\s+(?:the|our|a|next)|next)\s+(?:lesson|session|class|unit|chapter|lecture)"
    r"\s+(?:on|about)\s+(?P<what3>.+)$"
    rf"|\s*,?\s+{_CONNECTIVE}\s+it(?:'s|\s+is)\s+time\s+(?:for|to\s+(?:do|learn|start))\s+(?P<what4>.+)$",
    re.I | re.S,
)
_LIST_SPLIT = re.compile(r"\s*(?:,|\bor\b|\band\b|/)\s*", re.I)
_LEADING = re.compile(
    r"^(?:(?:on|onto|into|about|with)\s+)?(?:(?:the|a|an|some|any|our)\s+)?(?:(?:topic|subject)\s+of\s+)?",
    re.I,
)
_TRAILING = re.compile(r"\s+(?:clauses?|keywords?|part|topic|section|lesson|chapter)$", re.I)


def _strip_end(text: str) -> str:
    return re.sub(r"[\s.!?,;:]+$", "", text.strip())


def _lead_first(text: str) -> str:
    """A condition written before the request, moved after it ("Before X, remind me to Y").

    Also without the comma ("when we cover the past tense remember me that …"), and a request
    that closes the sentence ("I want to revisit X once we reach Y, so please remind me then.")
    reads as "remind me to I want to revisit X once we reach Y".
    """
    text = _POLITE.sub("", text.strip())
    last = _REQUEST_LAST.match(text)
    if last and not _REQUEST.search(last["task"]):
        task = re.sub(
            r"^I(?:\s+(?:want|need|would\s+like)|'d\s+like)\s+to\s+", "", last["task"].strip(), flags=re.I
        )
        return f"remind me to {_strip_end(task)}"
    match = _LEAD.match(text)
    found = _REQUEST.search(text)
    if match is None and found is not None and found.start() > 0:
        lead = _strip_end(text[: found.start()])
        bare = _LEAD_BARE.match(lead)
        if bare:
            return f"{_strip_end(text[found.start() :])} {bare['cond']}"
        # "Next Tuesday remind me to print the slides", "On June 3 please remind me …": a time
        # phrase first, without the comma (a few words of courtesy may follow it)
        if leading_time(lead, system_clock(), after=len(lead.split())) is None:
            lead = _after_discourse(lead)  # "Oh and on Thursday remind me …": the time after "Oh and"
        dated = leading_time(lead, system_clock(), after=len(lead.split()))
        if dated and _LEAD_BARE.match(lead[len(dated) :].strip()):
            # "Next week when we get to derivatives remind me …": a date, then a topic
            return f"{_strip_end(text[found.start() :])} {lead[len(dated) :].strip()} {dated}"
        timed = leading_time(lead, system_clock())
        return f"{_strip_end(text[found.start() :])} {timed}" if timed else text
    if match is None:
        return text
    rest = _POLITE.sub("", match["rest"])
    if not _REQUEST.match(rest):
        inner = _lead_first(rest)  # "On Friday, when we do voice leading, remind me …"
        moved = inner != rest and _REQUEST.match(inner)
        if moved and leading_time(match["cond"], system_clock()):
            return f"{inner} {match['cond'].strip()}"  # "On Friday, when we do X, remind me …"
        if moved and not _LEAD_BARE.match(match["cond"]):
            return inner  # "By the way, on Thursday remind me …": what comes before is no condition
        return text
    if _discourse(match["cond"]):
        return _strip_end(rest)  # "Hey, remind me …", "Oh and, remind me …": no condition, nothing to move
    return f"{_strip_end(rest)} {match['cond'].strip()}"


_DISCOURSE_POS = frozenset({"INTJ", "CCONJ", "ADV", "PUNCT"})
"""A condition made only of these is no condition: "Hey", "Oh and", "Also", "By the way" is not."""


def _discourse(text: str) -> bool:
    """True when ``text`` is only discourse words ("Hey", "Oh and", "So, also")."""
    return all(t.pos_ in _DISCOURSE_POS for t in parse(text))


def _after_discourse(lead: str) -> str:
    """``lead`` without the discourse words that open it ("Oh and on Thursday" -> "on Thursday").

    Read only when ``lead`` itself opens with no time: an adverb may be the time ("Later today").
    """
    for token in parse(lead):
        if token.pos_ not in _DISCOURSE_POS:
            return lead[token.idx :]
    return lead


def split_keywords(what: str) -> list[str]:
    """Keywords of a condition ("HAVING or window functions" -> ["HAVING", "window functions"])."""
    keywords = []
    for part in _LIST_SPLIT.split(_strip_end(what)):
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


def is_reminder_request(text: str) -> bool:
    """True when ``text`` asks to be reminded of something."""
    return isinstance(text, str) and _REQUEST.search(_causative(text)) is not None


def _causative(text: str) -> str:
    """A request to be made to do something, with a condition, read as "remind me to …".

    "When we get to loops, make me tell you about X", "Make me ask about Y when we do Z": the
    verb after "me" (by the parse) is the task. Without a condition ("make me a cheat sheet",
    "tell me to relax") it stays an ordinary ask.
    """
    found = _CAUSATIVE.match(text) if not _REQUEST.search(text) else None
    if found is None or parse(found["task"])[0].pos_ not in {"VERB", "AUX"}:
        return text
    lead = _strip_end(_POLITE.sub("", found["lead"]))
    cond = _LEAD_BARE.match(lead)
    if cond and not lead.rstrip().endswith("?"):
        return f"remind me to {_strip_end(found['task'])} {cond['cond']}"
    trailing = _KEYWORDS.search(found["task"]) or _CONCEPT.search(found["task"])
    return f"remind me to {found['task']}" if not lead and trailing else text


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
    nouns = [t for t in parse(_strip_end(where)) if t.pos_ == "NOUN"]
    return any(t.ent_type_ in {"DATE", "TIME"} or t.lemma_.lower() in _COURSE_SPANS for t in nouns)


_SPAN_START = re.compile(r"\s+(?=(?:this|that|during|over|within|sometime|later)\b)", re.I)


def _topic_time(what: str, now: datetime) -> tuple[str, str | None]:
    """A trigger's topic and its time (``split_time``), without a span of the course after it.

    "photosynthesis this term", "hash maps later this semester": the span says when, not what
    (``_course_time``); left in the topic, its words had to be named for the reminder to fire.
    """
    topic, when = split_time(what, now)
    if when is None:
        for cut in _SPAN_START.finditer(topic):
            if cut.start() and _course_time(topic[cut.start() :]):
                return _strip_end(topic[: cut.start()]), None
    return topic, when


def _not_before(when: str | None, now: datetime) -> dict[str, Any]:
    """A topic trigger's date ("when we do X on Friday"): it does not fire before (``due_at``)."""
    due = phrase_due(when, now) if when else None
    return {"due_at": due.isoformat(), "when": when} if due is not None else {}


def _trigger(rest: str, now: datetime) -> tuple[str, dict[str, Any]] | None:
    """``(the task, the trigger fields)`` of a request's text after "remind me to"."""
    concept, keywords = _CONCEPT.search(rest), _KEYWORDS.search(rest)
    if keywords and keywords["what3"] and due_time(keywords["what3"], now) is not None:
        keywords = None  # "before the lesson on Monday" names a time, not a topic
    if concept and (keywords is None or concept.start() <= keywords.start()):
        topic, when = _topic_time(concept["what"], now)
        what = _without_adverb(_TRAILING.sub("", _LEADING.sub("", topic)))
        fields = {"trigger_kind": "concept", "concept": what, "keywords": split_keywords(what)}
        return rest[: concept.start()], {**fields, **_not_before(when, now)}
    if keywords:
        topic, when = _topic_time(
            next(k for k in keywords.group("what", "what2", "what3", "what4") if k), now
        )
        after = (keywords["after"] or "").strip()
        if when is None and after and phrase_due(after, now) is not None:
            when = after  # "if X comes up next week": the time after "comes up" ("at some point" is none)
        found = split_keywords(topic)
        if keywords["where"] and not _course_time(keywords["where"]):
            # "if generators come up in Python": the trigger as the learner said it
            found = [f"{k} {_strip_end(keywords['where'])}" for k in found]
        fields = {"trigger_kind": "keywords", "keywords": found, **_not_before(when, now)}
        return (rest[: keywords.start()], fields) if found else None
    timed = time_due(rest, now)
    if timed:
        task, due = timed
        phrase = _strip_end(rest[len(task) :])
    else:  # "on the 14th, that's when my salary comes in": a remark after the time phrase
        task, due, phrase = time_before_aside(rest, now) or _opening(rest, now) or _default(rest, now)
    return task, {"trigger_kind": "time", "due_at": due.isoformat(), "when": phrase}


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


def _default(rest: str, now: datetime) -> tuple[str, datetime, str]:
    """No time named: the one-day default (``DEFAULT_PHRASE``)."""
    return rest, phrase_due(DEFAULT_PHRASE, now) or now + DEFAULT_DELAY, DEFAULT_PHRASE


_LEAD_TAIL = re.compile(r"(?:[\s,;:.\u2013\u2014-]|\b(?:so|and|please|then)\b)+$", re.I)
_EVENT = re.compile(r"\s+(?:it|that|then|(?:my|the|our|this)\s+[^\W\d_]+)\b", re.I)


def _before_event(text: str, now: datetime | None) -> dict[str, Any] | None:
    """A request for a span before an event whose date the sentence tells ("remind me two days before").

    "My exam is in three weeks, remind me a week before it to book a room", "Remind me the day
    before my interview on Friday to iron my shirt": read without the span and the event's name
    ("it", "my interview"), the request is due at the event's date; the span comes off it
    (``reminder_times.phrase_due`` reads "a week before in three weeks" as the store will).
    Without a date in the sentence it is read as any request.
    """
    span = BEFORE.search(text)
    if span is None or not is_reminder_request(text):
        return None
    event = _EVENT.match(text, span.end())
    rest = text[: span.start()] + text[event.end() if event else span.end() :]
    read = parse_reminder(re.sub(r"\s{2,}", " ", rest), now=now)
    if read is None or read["trigger_kind"] != "time":
        return None
    clock = as_aware(now or system_clock())
    event_when = read["when"]
    if event_when in (None, DEFAULT_PHRASE):  # "my viva is in a month; remind me …": the date before
        request = _REQUEST.search(text)
        lead = _LEAD_TAIL.sub("", text[: request.start()]) if request else ""
        # the longest ending of the event's clause that reads as a time ("September 30", "in a month")
        starts = [m.end() for m in re.finditer(r"\s+", lead)]
        event_when = next((lead[i:] for i in starts if phrase_due(lead[i:], clock) is not None), None)
    when = f"{span['span']} {event_when}" if event_when else None
    due = phrase_due(when, clock) if when else None
    return {**read, "due_at": due.isoformat(), "when": when} if due is not None else None


def parse_reminder(text: str, *, now: datetime | None = None) -> dict[str, Any] | None:
    """The reminder a request asks for (``ReminderStore.set`` arguments plus ``trigger_kind``), or None.

    Keys: description, action, trigger_kind, keywords, concept, due_at (ISO as of ``now``, or None)
    and, for a time trigger, ``when``: the time phrase itself ("the day after tomorrow"), for a
    store to resolve against the session's clock (``ReminderStore.set``).
    """
    if not isinstance(text, str):
        return None
    before = _before_event(text, now)
    if before is not None:
        return before
    match = _REQUEST.search(_lead_first(_causative(text)))
    if match is None:
        return None
    now = as_aware(now or system_clock())
    rest, link = _strip_end(match["rest"]), match["link"]
    first = _COND_FIRST.match(rest)
    if first:  # the condition before the task: read as "<task> <condition>"
        task = re.match(r"^(?:(?P<link>to|that|about)\s+)?(?P<task>.+)$", first["task"].strip(), re.I | re.S)
        rest, link = f"{_I_WANT.sub('', task['task'])} {first['cond'].strip()}", link or task["link"]
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
    description = _strip_end(read[0])
    if not any(w.lower() not in FUNCTION_WORDS for w in re.findall(r"[^\W_]+", description)):
        return None  # "remind me to" with nothing to do
    link = (link or "to").lower()
    out: dict[str, Any] = {"keywords": [], "concept": None, "due_at": None, "when": None, **read[1]}
    return {**out, "description": description, "action": f"Remind the learner {link} {description}"}
