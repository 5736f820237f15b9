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
  "my" stays ("when I mention my viva": the learner's own thing, ``trigger_sense``). ``X``, its
  keywords and what in it is no topic, is read by ``agent.language.trigger_topics``; also
  "<connective> the lesson | session | class on <X>" (unless X is a time: "the lesson on Friday"),
  "next lesson on <X>", "when it's time for <X>". "I want you to remind me" after a leading
  condition reads as "remind me";
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
  time", "once we meet again", ``trigger_topics.session_only``): a time trigger one day later
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
)
from agent.language.reminder_times import (
    BEFORE,
    opening_times,
    phrase_due,
    time_arrives,
    time_before_aside,
    time_due,
)
from agent.language.trigger_topics import (
    LEADING,
    TRAILING,
    antecedent,
    course_time,
    only_pronouns,
    past_adverb,
    session_only,
    split_keywords,
    topic_time,
    without_adverb,
)
from agent.language.when import due_time
from agent.text import FUNCTION_WORDS

DEFAULT_DELAY = timedelta(days=1)
DEFAULT_PHRASE = "in 1 day"
"""``DEFAULT_DELAY`` as a time phrase (what a store resolves against its own clock)."""

# "Don't let me forget: when we do cells in biology, I want to ask …": the condition opens the text
_COND_FIRST = re.compile(
    rf"^(?P<cond>{CONNECTIVE}\s+[^,;:]+?)\s*[,;:\u2013\u2014]\s*(?P<task>.+)$", re.I | re.S
)
_TIME_FIRST = re.compile(r"^(?P<when>.+?)\s+(?P<link>to|about|that)\s+(?P<task>.+)$", re.I | re.S)


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
    if clause is not None and session_only(next(k for k in clause.groupdict().values() if k), now):
        # "before we start next time", "once we meet next session": no topic, so the next session
        # (the one-day default, or the time the clause names) and the clause is no part of the task
        said = next(k for k in clause.groupdict().values() if k)
        rest, concept, keywords = rest[: clause.start()], None, None
        due = phrase_due(strip_end(said), now)
        if due is not None:  # "before we start next week"
            return rest, {"trigger_kind": "time", "due_at": due.isoformat(), "when": strip_end(said)}
    if concept and (keywords is None or concept.start() >= keywords.start()):
        topic, when = topic_time(concept["what"], now)
        what = without_adverb(TRAILING.sub("", LEADING.sub("", topic)))
        fields = {"trigger_kind": "concept", "concept": what, "keywords": split_keywords(what)}
        return rest[: concept.start()], {**fields, **_not_before(when, now)}
    if keywords:
        topic, when = topic_time(
            past_adverb(keywords) or next(k for k in keywords.group("what", "what2", "what3", "what4") if k),
            now,
        )
        after = (keywords["after"] or "").strip()
        if when is None and after and phrase_due(after, now) is not None:
            when = after  # "if X comes up next week": the time after "comes up" ("at some point" is none)
        found = split_keywords(topic)
        if len(found) == 1 and _LEARNER_BRINGS.match(keywords.group(0)) and topic.lower().startswith("the "):
            found = [f"my {found[0]}"]  # "when I bring up the interview again": the learner's own thing
        if keywords["where"] and not course_time(keywords["where"]):
            # "if generators come up in Python": the trigger as the learner said it
            found = [f"{k} {strip_end(keywords['where'])}" for k in found]
        fields = {"trigger_kind": "keywords", "keywords": found, **_not_before(when, now)}
        if found:
            return rest[: keywords.start()], fields
        named = antecedent(rest[: keywords.start()], topic) if only_pronouns(topic) else None
        if named:  # "remind me to thank Kwame when I mention him": the person the task names
            return rest[: keywords.start()], {**fields, "keywords": [named]}
        if only_pronouns(topic):
            return None  # "when we get to it": a topic the request never named, so no trigger to wait for
        rest = rest[: keywords.start()]  # "when we meet again": no topic, the next session (below)
    timed = time_due(rest, now)
    if timed:
        task, due = timed
        phrase = strip_end(rest[len(task) :])
    else:  # "on the 14th, that's when my salary comes in": a remark after the time phrase
        task, due, phrase = time_before_aside(rest, now) or _opening(rest, now) or _default(rest, now)
    return task, {"trigger_kind": "time", "due_at": due.isoformat(), "when": phrase}


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
