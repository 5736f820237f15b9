"""Reminder requests and their triggers: what to remind of, and on what turn.

**Requests** (``parse_reminder``): "remind me to <task> <condition>", also "remind me about /
that …", "don't let me forget to …", "make sure I remember …", "ping / nudge me about …",
"I need a reminder to …", "give me a heads-up about …", "jog my memory about …". The
condition may stand first: "Before we start recursion, remind me to …", "Tomorrow, remind me
to …" are read as "remind me to … before we start recursion" (``_lead_first``); discourse words
before a leading time are no condition ("Oh and on Thursday remind me …", "By the way, on Friday
remind me …": the time is Thursday's, not the one-day default's). It sets the
trigger:

- *concept*: "when/once/after/before we study | learn | cover | start | begin | do <concept>";
- *keywords*: a clause with any connective (when, whenever, once, as soon as, if, before,
  after, next time, the first time, the moment) and any verb: "<connective> we|I|you [ever] <verb>
  [on|to|about|…] <X>" ("when we come to verb aspect in Russian"), or "<connective> <X> comes
  up [in <context>]" (the keyword keeps its context: "generators in Python"). ``X`` may list
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
- no condition: a time trigger one day later (``DEFAULT_DELAY``).

**Mentions** (``mentions``): does a turn name a trigger's words? Whole words compared by light
stem ("window functions" matches "window function"), never a substring ("behaving" never matches
"having"); a keyword written in capitals ("HAVING") is a code term and matches in capitals,
in backticks, or before "clause", "keyword", "statement", "function", "operator"
(``TERM_WORDS``), so "I'm having trouble" never fires a HAVING reminder.

**Sense** (``names_trigger``, what ``reminder_rules.trigger_matches`` asks): a code name
("GROUP BY", "functools.wraps", "useEffect") fires on its mention alone. Any other keyword fires
when one sentence of the turn names every topic word of the trigger in its order (``head_words``:
"borrowing" of "borrowing in Rust", in any form by ``word_lemmas`` (``agent.language.topic_words``:
"merge" / "merges" / "merging", "memoization" / "memoize");
"pandas: what is a Series" names "pandas Series") AND reads like the trigger as the learner said
it (a topic word rarer than ``RARE_ZIPF`` has one sense and needs no more: "rebasing" is named by
"How do I rebase my feature branch?"): MiniLM cosine with the keyword ("pointers in C", "merges
in pandas") at least
``SENSE_THRESHOLD``, for the sentence or for the clause (cut at ":", ",", ";", "?", "so", "and",
"but") that names the last topic word, so a question after the topic does not dilute it ("Let's do
the threading module today: how do I start two threads?" 0.41 as a whole). "Can you point me
to a good C book?" (0.41 to "pointers") or "our teams are merging" (0.31 to "merges in pandas")
stay silent, so they no longer use the reminder up before the topic's turn ("Explain pointers to me.", 0.85).

**Turning to it** (``agent.language.reminder_turns.turns_to``): a sentence that names the topic only
in passing (another's attribute, a clause about another person, said to come later: "My colleague's
pronunciation is so good", "My teacher mentioned the subjunctive is coming after spring break") does
not fire, whatever its similarity; the dependency parse says who does what with the topic word.

Similarity alone does not decide (measured 2026-11-28: a turn about a neighbour, "subqueries" /
query 0.73, scores like a turn about the trigger), so it only vetoes a word match. The threshold
is chosen by leave-one-out over ``bench/cognitive/sets/reminders_sense.json`` (``bench/reminder_knobs.py``).
Measured and not kept (2026-11-29): the head noun alone with a threshold of its own ("Let's cover
perfective and imperfective aspect." for "verb aspect in Russian" scores 0.33, the head noun in
another sense up to 0.47; ``bench/cognitive/sets/reminders_head_only.json``), and a completion
reading of "after we finish X" by similarity ("we're done with joins" 0.64-0.86 against the
finished phrase, ordinary joins talk 0.49-0.81).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from agent.clock import as_aware, system_clock
from agent.language.encoder import encode, encode_kept
from agent.language.grammar import parse
from agent.language.reminder_times import leading_time, phrase_due, split_time, time_before_aside, time_due
from agent.language.reminder_turns import turns_to
from agent.language.topic_words import word_lemmas, zipf
from agent.language.when import due_time
from agent.text import FUNCTION_WORDS, STOP_WORDS, light_stem

DEFAULT_DELAY = timedelta(days=1)
DEFAULT_PHRASE = "in 1 day"
"""``DEFAULT_DELAY`` as a time phrase (what a store resolves against its own clock)."""
MAX_KEYWORDS = 20
TERM_WORDS = frozenset({"clause", "keyword", "statement", "function", "operator", "command"})

_REQUEST = re.compile(
    r"(?:remind\s+me|(?:do\s+not|don't|dont)\s+let\s+me\s+forget|make\s+sure\s+I\s+(?:remember|don't\s+forget)"
    r"|(?:ping|nudge|prompt)\s+me|I(?:'d)?\s+(?:need|like|want)\s+a\s+reminder|give\s+me\s+a\s+heads[- ]up"
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
    r"(?:\s+(?:on|to|into|about|with|at|over|through|up|around))*\s+(?P<what>.+)$"
    rf"|\s*,?\s+{_CONNECTIVE}\s+(?P<what2>.+?)\s+(?:comes?|is|are)\s+(?:up|discussed|covered|next)"
    r"(?:\s+(?P<where>(?:in|with|during)\s+[^,]+?))?(?:\s+(?:again|later|next|at\s+last))?\s*$"
    rf"|\s*,?\s+(?:{_CONNECTIVE}\s+(?:the|our|a|next)|next)\s+(?:lesson|session|class|unit|chapter|lecture)"
    r"\s+(?:on|about)\s+(?P<what3>.+)$"
    rf"|\s*,?\s+{_CONNECTIVE}\s+it(?:'s|\s+is)\s+time\s+(?:for|to\s+(?:do|learn|start))\s+(?P<what4>.+)$",
    re.I | re.S,
)
_LIST_SPLIT = re.compile(r"\s*(?:,|\bor\b|\band\b|/)\s*", re.I)
_LEADING = re.compile(
    r"^(?:(?:on|into|about|with)\s+)?(?:(?:the|a|an|some|any|our|my)\s+)?(?:(?:topic|subject)\s+of\s+)?", re.I
)
_TRAILING = re.compile(r"\s+(?:clauses?|keywords?|part|topic|section|lesson|chapter)$", re.I)
_TOKEN = re.compile(r"`[^`]*`|[^\W_]+(?:['\u2019][^\W_]+)?")


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
        part = _TRAILING.sub("", _LEADING.sub("", part.strip().strip("`'\"")))
        if part and is_trigger_word(part) and part not in keywords:
            keywords.append(part)
    return keywords[:MAX_KEYWORDS]


def is_trigger_word(keyword: str) -> bool:
    """False for keywords made only of stop words (they would fire on every turn)."""
    words = re.findall(r"[^\W_]+", keyword)
    return any(w.isupper() and len(w) > 1 or w.lower() not in STOP_WORDS for w in words)


def is_reminder_request(text: str) -> bool:
    """True when ``text`` asks to be reminded of something."""
    return isinstance(text, str) and _REQUEST.search(text) is not None


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
        topic, when = split_time(concept["what"], now)
        what = _TRAILING.sub("", _LEADING.sub("", topic))
        fields = {"trigger_kind": "concept", "concept": what, "keywords": split_keywords(what)}
        return rest[: concept.start()], {**fields, **_not_before(when, now)}
    if keywords:
        topic, when = split_time(next(k for k in keywords.group("what", "what2", "what3", "what4") if k), now)
        found = split_keywords(topic)
        if keywords["where"]:  # "if generators come up in Python": the trigger as the learner said it
            found = [f"{k} {_strip_end(keywords['where'])}" for k in found]
        fields = {"trigger_kind": "keywords", "keywords": found, **_not_before(when, now)}
        return (rest[: keywords.start()], fields) if found else None
    timed = time_due(rest, now)
    if timed:
        task, due = timed
        phrase = _strip_end(rest[len(task) :])
    else:  # "on the 14th, that's when my salary comes in": a remark after the time phrase
        default = phrase_due(DEFAULT_PHRASE, now) or now + DEFAULT_DELAY
        task, due, phrase = time_before_aside(rest, now) or (rest, default, DEFAULT_PHRASE)
    return task, {"trigger_kind": "time", "due_at": due.isoformat(), "when": phrase}


def parse_reminder(text: str, *, now: datetime | None = None) -> dict[str, Any] | None:
    """The reminder a request asks for (``ReminderStore.set`` arguments plus ``trigger_kind``), or None.

    Keys: description, action, trigger_kind, keywords, concept, due_at (ISO as of ``now``, or None)
    and, for a time trigger, ``when``: the time phrase itself ("the day after tomorrow"), for a
    store to resolve against the session's clock (``ReminderStore.set``).
    """
    if not isinstance(text, str):
        return None
    match = _REQUEST.search(_lead_first(text))
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


# ----- does a turn name a trigger -----


def _tokens(text: str) -> list[tuple[str, str, bool]]:
    """``(stem, original, in_backticks)`` per word of ``text``."""
    out = []
    for token in _TOKEN.findall(text):
        if token.startswith("`"):
            out.extend((light_stem(w), w, True) for w in re.findall(r"[^\W_]+", token))
        else:
            out.append((light_stem(token), token, False))
    return out


def _is_code_term(keyword: str) -> bool:
    letters = [c for c in keyword if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def mentions(message: str, keyword: str) -> bool:
    """True when ``message`` names ``keyword`` by the whole-word and code-term rules."""
    words = _tokens(message)
    wanted = [light_stem(w) for w in re.findall(r"[^\W_]+", keyword)]
    if not wanted:
        return False
    code = _is_code_term(keyword)
    for i in range(len(words) - len(wanted) + 1):
        window = words[i : i + len(wanted)]
        if [w[0] for w in window] != wanted:
            continue
        if not code or all(orig.isupper() or tick for _, orig, tick in window):
            return True
        after = words[i + len(wanted)][1].lower() if i + len(wanted) < len(words) else ""
        if after in TERM_WORDS or (after.endswith("s") and after[:-1] in TERM_WORDS):
            return True
    return False


# ----- does a turn name a trigger in its sense -----

_CONTEXT_CUT = re.compile(r"\s+(?:in|of|for|on|with|from|using|inside|by)\s+", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# a learner's turn often names the topic in one clause and asks in the next ("let's get to decorators:
# what does the @ symbol do?"); the clause that names it is compared too, so the question does not
# dilute the similarity
_CLAUSE_CUT = re.compile(r"\s*[:;,()\u2014]\s*|\s+-\s+|\?\s*|\s+(?=(?:so|and|but|because)\b)", re.I)
_CODE_NAME = re.compile(r"[._()`]|[a-z][A-Z]|^[^\W\d_]*\d")
SENSE_THRESHOLD = 0.53
"""Least MiniLM cosine between the turn (or its naming clause) and the trigger as the learner said it
(leave-one-out over ``bench/cognitive/sets/reminders_sense.json`` and ``heldout4.json``,
``bench/reminder_knobs.py``; best interval 0.53-0.53 on both, 0.53-0.56 on reminders_sense alone).
Measured 2026-11-29: leave-one-out 99/109 fires once, 6/605 false; traffic 23/6,164 pairs (0.4 %).
Chosen again with ``RARE_ZIPF`` over six sets (reminders_sense, heldout4, heldout5, reminders_forms,
reminders_other_sense, reminders_times; 2026-11-29, session 40): (0.53, 2.0) on all of them, best
interval 0.53 with any rarity in 1.5-2.25; leave-one-out 133/157 fires once, 12/911 false (1.3 %);
traffic 30/8,375 pairs (0.4 %), every one a question about the trigger's own topic.
Chosen again with the passing-mention veto (``reminder_turns``) over nine sets (the six, plus
reminders_turns, reminders_dates, heldout6; 2026-11-29, session 41): best interval 0.47-0.56 with
rarity 1.5-2.25, 0.53 and 2.0 inside it, kept; leave-one-out 178/197 fires once, 12/1,103 false
(1.1 %) (the code before: 149/197, 26/1,103); traffic 35/10,117 pairs (0.3 %).
Measured again with the told-event veto and the fragment reading over thirteen sets (the nine,
plus heldout7, reminders_local_days, reminders_fragments, reminders_told_events; 2026-11-29,
session 42): leave-one-out picks 0.45-0.48 with rarity 2.0-2.25 (235/245 fires once, 7/1,317
false); 0.47 makes 17 errors on them and 0.53 makes 20, but at 0.47 the check set
reminders_sense_frozen falls (12/12, 0/60 -> 11/12, 1/60) and traffic rises 38 -> 39 of 12,261
pairs, so 0.53 is kept."""


def is_code_name(keyword: str) -> bool:
    """A keyword that names code ("GROUP BY", "functools.wraps", "useEffect"): its words fire alone.

    Every word of it is code: "merging DataFrames" names a topic that a turn may say in another
    form or with words between ("how do I merge two DataFrames"), so it is read as any other topic.
    """
    words = keyword.split()
    return _is_code_term(keyword) or bool(words) and all(_CODE_NAME.search(w) for w in words)


RARE_ZIPF = 2.0
"""A topic word rarer than this (``wordfreq`` Zipf frequency, English) has one sense in a learner's
turn ("rebase" 1.8, "lambdas" 1.7, "backpropagation" 1.6), so a trigger that holds one fires when a
turn names its topic words, without the similarity veto: MiniLM reads "How do I rebase my feature
branch onto main?" at 0.40 from "rebasing". Words with an everyday sense are commoner ("callbacks"
2.4, "decorators" 2.6, "modes" 4.0) and keep the veto. Chosen by leave-one-out with
``SENSE_THRESHOLD`` (``bench/reminder_knobs.py``)."""


def is_rare_topic(keyword: str, *, rare: float | None = None) -> bool:
    """True when a topic word of ``keyword`` is rarer than ``rare`` (default ``RARE_ZIPF``)."""
    cut = RARE_ZIPF if rare is None else rare
    return any(min(zipf(w), *(zipf(x) for x in word_lemmas(w))) < cut for w in head_words(keyword))


def head_words(keyword: str) -> list[str]:
    """The topic words of a trigger ("borrowing in Rust" -> ["borrowing"]), without its context."""
    head = _CONTEXT_CUT.split(keyword, maxsplit=1)[0]
    # function words only: "cases" is a chat word ("in some cases") but the topic of "German cases"
    words = [w for w in re.findall(r"[^\W_]+", head) if w.lower() not in FUNCTION_WORDS and len(w) > 1]
    return words or [w for w in re.findall(r"[^\W_]+", keyword) if w.lower() not in FUNCTION_WORDS]


def naming_sentence(message: str, keyword: str) -> str | None:
    """The sentence of ``message`` that names the topic words of ``keyword`` in their order (any form).

    Every word, in its order, not always side by side ("Let's begin with pandas: what is a
    Series?" names "pandas Series"): "Inner joins first." does not name "outer joins", "Let's do
    French numbers." not "French accents", "The function broke my window layout." not "window
    functions"; the context ("in Rust") may be left out.
    """
    return _naming(message, keyword)[0]


def _naming(message: str, keyword: str) -> tuple[str | None, str | None]:
    """``(sentence, clause)`` naming ``keyword``'s topic words in ``message``; the clause holds the last."""
    return next(_namings(message, keyword), (None, None))


def _namings(message: str, keyword: str) -> Iterator[tuple[str, str]]:
    """Every ``(sentence, clause)`` of ``message`` that names ``keyword``'s topic words, in order."""
    wanted = [word_lemmas(w) for w in head_words(keyword)]
    if not wanted:
        return
    for sentence in _SENTENCE_END.split(message.strip()):
        left = list(wanted)
        for clause in _CLAUSE_CUT.split(sentence):
            for word in re.findall(r"[^\W_]+", clause or ""):
                if left and left[0] & word_lemmas(word):
                    left.pop(0)
            if not left:
                yield sentence, clause or ""
                break


def sense(sentence: str, phrase: str) -> float:
    """MiniLM cosine between a turn's sentence and a trigger phrase (the phrase's vector is kept)."""
    return float(encode([sentence])[0] @ encode_kept([phrase])[0])


def names_trigger(message: str, keyword: str, *, threshold: float | None = None) -> bool:
    """True when ``message`` names ``keyword`` in the sense the learner gave it.

    A code name fires on its whole-word mention (``mentions``). Any other keyword fires when a
    sentence names one of its topic words (``head_words``, by ``word_lemmas``) AND that sentence
    reads like the trigger as the learner said it ("pointers in C"): MiniLM cosine of at least
    ``threshold`` (default ``SENSE_THRESHOLD``), so "Any pointers for staying focused?" or "our
    teams are merging" stay silent.
    Only a turn that names a topic word is embedded (the turn's vector is memoised by the encoder).
    """
    if is_code_name(keyword):
        return mentions(message, keyword)
    least = SENSE_THRESHOLD if threshold is None else threshold
    topic = head_words(keyword)
    for sentence, clause in _namings(message, keyword):
        # a passing mention ("my colleague's pronunciation", "my teacher said the subjunctive is
        # coming") names the topic but does not turn to it: the reminder waits for the turn that does
        if not turns_to(sentence, topic):
            continue
        if is_rare_topic(keyword):
            return True
        if sense(sentence, keyword) >= least or (clause != sentence and sense(clause, keyword) >= least):
            return True
    return False
