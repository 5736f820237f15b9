"""Where a reminder request is, and its parts put in one order: "remind me to <task> <condition>".

The request words (``REQUEST``): "remind me to / about / that …", "don't let me forget / skip /
miss …", "make sure I remember …", "ping / nudge / bug / poke me about …", "I need a reminder
to …", "give me a heads-up about …", "jog my memory about …", "remember me to / that …".

What a learner writes around them is moved into that order before the trigger is read
(``agent.language.reminders``):

- a condition first, with or without its comma ("Before we start recursion, remind me to …",
  "when we cover the past tense remember me that …"), or a time first ("Next Tuesday remind me
  to …"), is moved after the task (``lead_first``); without its comma it ends at the request
  word, also when a comma follows inside the task ("when we do X remind me to show you Y, it's
  slow"), and discourse words before it or courtesy after it ("oh and …", "… can you remind me")
  are no part of it; discourse words before a time are no condition ("Oh and on Thursday remind me …");
- a request that closes the sentence ("I want to revisit X once we reach Y, so please remind me
  then") reads as "remind me to revisit X once we reach Y";
- a request to be made to do something, with a condition ("When we reach X, make me tell you
  …", "get me to ask …", "have me show you …", "make sure I ask …") reads as "remind me to …"
  (``causative``); without a condition it is an ordinary ask ("make me a cheat sheet").

The trigger forms a causative request is checked against (``CONCEPT``, ``KEYWORDS``) live here
too, so that both modules read one set of patterns.
"""

from __future__ import annotations

import re

from agent.clock import system_clock
from agent.language.grammar import parse
from agent.language.reminder_times import leading_time

REQUEST = re.compile(
    r"(?:remind\s+me|(?:do\s+not|don't|dont)\s+let\s+me\s+(?:forget|skip|miss)|make\s+sure\s+I\s+(?:remember|don't\s+forget)"
    r"|(?:ping|nudge|prompt|bug|poke)\s+me|I(?:'d)?\s+(?:need|like|want)\s+a\s+reminder"
    r"|give\s+me\s+a\s+heads[- ]up"
    r"|jog\s+my\s+memory|remember\s+me(?=\s+(?:to|that|about|of)\s))\s*[:;,\u2013\u2014-]?\s+(?:later\s+)?(?:(?P<link>to|about|that|of)\s+)?(?P<rest>.+)",
    re.I | re.S,
)
CONNECTIVE = (
    r"(?:when(?:ever)?|once|if|as\s+soon\s+as|before|after|(?:the\s+)?(?:next|first)\s+time|the\s+moment)"
)
_LEAD = re.compile(rf"^\s*(?P<cond>{CONNECTIVE}\s+[^,]+?|[^,]{{1,40}}?),\s*(?P<rest>.+)$", re.I | re.S)
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
I_WANT = re.compile(r"^I(?:\s+(?:want|need|would\s+like)|'d\s+like)\s+to\s+", re.I)
LEAD_BARE = re.compile(rf"^(?P<cond>{CONNECTIVE}\s+.+)$", re.I | re.S)
_COURTESY_END = re.compile(
    r"(?:\s+(?:please|pls|then|(?:can|could|would|will)\s+you|I(?:\s+(?:want|need)|'d\s+like)\s+you\s+to))+$",
    re.I,
)
"""Courtesy that ends a condition before the request ("once we do X please remind me"): no topic."""
_POLITE = re.compile(
    r"^\s*(?:please|can\s+you|could\s+you|would\s+you|will\s+you|and|so"
    r"|I(?:\s+(?:want|need)|'d\s+like|\s+would\s+like)\s+you\s+to)\s+",
    re.I,
)
_WE = r"(?:we|I|you)(?:\s*'re|\s+are|\s+am|\s*'m)?"
CONCEPT = re.compile(
    rf"\s*,?\s+(?:when|once|after|before)\s+{_WE}\s+(?:start(?:ing)?\s+|begin(?:ning)?\s+)?"
    r"(?:study(?:ing)?|learn(?:ing)?|cover(?:ing)?|start(?:ing)?|begin(?:ning)?|do(?:ing)?)\s+"
    r"(?P<what>.+)$",
    re.I | re.S,
)
KEYWORDS = re.compile(
    rf"\s*,?\s+{CONNECTIVE}\s+{_WE}\s+(?!comes?\s+up\b)[^\W\d_]+"
    r"(?:\s+(?:on|onto|to|into|about|with|at|over|through|up|around|back))*\s+(?P<what>.+)$"
    rf"|\s*,?\s+{CONNECTIVE}\s+(?P<what2>.+?)\s+(?:comes?|is|are)\s+(?:up|discussed|covered|next)"
    r"(?P<after>\s+(?!(?:in|with|during)\b)[^,]+?)?(?:\s+(?P<where>(?:in|with|during)\s+[^,]+?))?"
    r"(?:\s+(?:again|later|next|at\s+last))?\s*$"
    rf"|\s*,?\s+(?:{CONNECTIVE}\s+(?:the|our|a|next)|next)\s+(?:lesson|session|class|unit|chapter|lecture)"
    r"\s+(?:on|about)\s+(?P<what3>.+)$"
    rf"|\s*,?\s+{CONNECTIVE}\s+it(?:'s|\s+is)\s+time\s+(?:for|to\s+(?:do|learn|start))\s+(?P<what4>.+)$",
    re.I | re.S,
)


def strip_end(text: str) -> str:
    """``text`` without the spaces and punctuation that end it."""
    return re.sub(r"[\s.!?,;:]+$", "", text.strip())


_UTTERANCE_END = re.compile(r"[.!?:]+\s+")
"""The end of an utterance inside one piece of text: "hey! next time …" (``pysbd`` does not cut
before lower case); a colon too, after a lead-in that announces the request ("two things: when we
get to X, remind me …"): kept, the lead-in stood before the condition and no trigger was read."""


def own_utterance(text: str) -> str:
    """``text`` from the utterance the request is in, when an earlier one only precedes it.

    "hola! next time we talk about X, don't let me forget …", "hi, I'm back. once we get to X,
    remind me …": the greeting is an utterance of its own, before the condition. Left in, the
    condition did not open the text, so no trigger was read and the request fell to the one-day
    default: it fired at the next session's first turn, on an unrelated turn, and was spent before
    its topic came. Cut only where the request's utterance opens with a condition: "I want to
    revisit X once we reach Y. So remind me then." keeps its task, and "My test is in 10 days.
    Remind me 2 days before." its event's date.
    """
    found = REQUEST.search(text) or _CAUSATIVE.match(text)
    at = found.start() if found and found.re is REQUEST else len(found["lead"]) if found else 0
    ends = list(_UTTERANCE_END.finditer(text, 0, at))
    if not ends:
        return text
    tail = text[ends[-1].end() :]
    return tail if LEAD_BARE.match(tail) else text


def lead_first(text: str) -> str:
    """A condition written before the request, moved after it ("Before X, remind me to Y").

    Also without the comma ("when we cover the past tense remember me that …"), and a request
    that closes the sentence ("I want to revisit X once we reach Y, so please remind me then.")
    reads as "remind me to I want to revisit X once we reach Y". An utterance before the one the
    request is in ("hey! next time we …") is no part of it (``own_utterance``).
    """
    text = own_utterance(_POLITE.sub("", text.strip()))
    last = _REQUEST_LAST.match(text)
    if last and not REQUEST.search(last["task"]):
        return f"remind me to {strip_end(I_WANT.sub('', last['task'].strip()))}"
    found = REQUEST.search(text)
    match = _LEAD.match(text)
    if match and found and 0 < found.start() < match.end("cond"):
        # "next time we do X remind me to show you Y, it's slow": the first comma is the task's
        match = None
    if match is None and found is not None and found.start() > 0:
        lead = _COURTESY_END.sub("", strip_end(text[: found.start()]))
        bare = LEAD_BARE.match(lead) or LEAD_BARE.match(_after_discourse(lead))  # "oh and once we …"
        if bare:
            return f"{strip_end(text[found.start() :])} {bare['cond']}"
        # "Next Tuesday remind me to print the slides", "On June 3 please remind me …": a time
        # phrase first, without the comma (a few words of courtesy may follow it)
        if leading_time(lead, system_clock(), after=len(lead.split())) is None:
            lead = _after_discourse(lead)  # "Oh and on Thursday remind me …": the time after "Oh and"
        dated = leading_time(lead, system_clock(), after=len(lead.split()))
        if dated and LEAD_BARE.match(lead[len(dated) :].strip()):
            # "Next week when we get to derivatives remind me …": a date, then a topic
            return f"{strip_end(text[found.start() :])} {lead[len(dated) :].strip()} {dated}"
        timed = leading_time(lead, system_clock())
        return f"{strip_end(text[found.start() :])} {timed}" if timed else text
    if match is None:
        return text
    rest = _POLITE.sub("", match["rest"])
    if not REQUEST.match(rest):
        inner = lead_first(rest)  # "On Friday, when we do voice leading, remind me …"
        moved = inner != rest and REQUEST.match(inner)
        if moved and leading_time(match["cond"], system_clock()):
            return f"{inner} {match['cond'].strip()}"  # "On Friday, when we do X, remind me …"
        if moved and not LEAD_BARE.match(match["cond"]):
            return inner  # "By the way, on Thursday remind me …": what comes before is no condition
        return text
    if _discourse(match["cond"]):
        return strip_end(rest)  # "Hey, remind me …", "Oh and, remind me …": no condition, nothing to move
    return f"{strip_end(rest)} {match['cond'].strip()}"


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


def is_reminder_request(text: str) -> bool:
    """True when ``text`` asks to be reminded of something (and does not decline it, ``declined``)."""
    return isinstance(text, str) and REQUEST.search(causative(text)) is not None and not declined(text)


_CLAUSE_UP = frozenset({"xcomp", "acl", "relcl", "ccomp"})
"""The request verb as the complement of what declines it ("have to remind", "need to remind")."""
_REVERSING = frozenset({"forget", "fail", "neglect"})
"""Verbs that reverse the polarity of the verb under them: "don't forget to remind me" asks."""


def declined(text: str) -> bool:
    """True when the request words in ``text`` are negated: a reminder declined, not asked for.

    "No need to remind me about the mock, it's in my calendar", "you don't have to remind me",
    "please don't remind me about X": the request verb, or the clause it is the complement of, is
    negated (a ``neg`` dependent, or a noun under "no"). Read by the parse, counting negations up
    the chain of clauses an infinitive ("to remind") is the complement of; an imperative heads its
    own clause. A verb that reverses what is under it ("don't forget to remind me") makes it a
    request again. Forms with the negation inside the request ("don't let me forget") are matched
    whole by ``REQUEST`` and start at their own verb. Measured (2026-11-30): my own 12 declined and
    real requests (reminders_declined.json) 10/12 fires once, 9/46 false -> 12/12, 0/46.
    """
    found = REQUEST.search(text) if isinstance(text, str) else None
    if found is None:
        return False
    doc = parse(text)
    verb = next((t for t in doc if t.idx >= found.start()), None)
    flips = 0
    node = verb
    while node is not None:
        flips += sum(1 for c in node.children if c.dep_ == "neg" or (c.dep_ == "det" and c.lower_ == "no"))
        flips += node is not verb and node.lemma_ in _REVERSING
        infinitive = any(c.tag_ == "TO" for c in node.children)
        if not infinitive or node.dep_ not in _CLAUSE_UP or node.head.i == node.i:
            break  # an imperative heads its own clause, whatever the parser hangs it under
        node = node.head
    return flips % 2 == 1


def causative(text: str) -> str:
    """A request to be made to do something, with a condition, read as "remind me to …".

    "When we get to loops, make me tell you about X", "Make me ask about Y when we do Z": the
    verb after "me" (by the parse) is the task. Without a condition ("make me a cheat sheet",
    "tell me to relax") it stays an ordinary ask.
    """
    text = own_utterance(text)
    asked = REQUEST.search(text) is not None
    found = None if asked else _CAUSATIVE.match(text)
    if found is None and not asked:
        return _asked_of_tutor(text) or text
    if found is None or parse(found["task"])[0].pos_ not in {"VERB", "AUX"}:
        return text
    lead = strip_end(_POLITE.sub("", found["lead"]))
    cond = LEAD_BARE.match(lead)
    if cond and not lead.rstrip().endswith("?"):
        return f"remind me to {strip_end(found['task'])} {cond['cond']}"
    trailing = KEYWORDS.search(found["task"]) or CONCEPT.search(found["task"])
    return f"remind me to {found['task']}" if not lead and trailing else text


_TUTOR_TIME = re.compile(rf"^\s*,?\s*{CONNECTIVE}\s+you\b", re.I)
"""A condition on the tutor ("when you have a minute"): when to do it now, not a trigger to wait for."""


def _asked_of_tutor(text: str) -> str | None:
    """A task asked of the tutor for a later turn, read as "remind me to <task> <condition>".

    "Quiz me on X when we do Y", "once we reach Y, ask me about X": by the parse, an imperative
    (a bare verb heading the sentence, no subject) whose object is the learner, with a condition
    a later turn meets (``KEYWORDS``, ``CONCEPT`` or a leading one). Not a reminder: a question
    ("when we do Y can you go slower?" is answered now), no condition ("quiz me on X now"), or a
    condition on the tutor's own time ("test me when you have a minute").
    """
    if text.rstrip().endswith("?"):
        return None
    doc = parse(text)
    for root in (t for t in doc if t.dep_ == "ROOT"):
        me = any(c.lower_ == "me" and c.dep_ in {"dobj", "dative"} for c in root.children)
        if root.tag_ != "VB" or not me or any(c.dep_.startswith("nsubj") for c in root.children):
            continue
        lead, task = strip_end(_POLITE.sub("", text[: root.idx])), strip_end(text[root.idx :])
        cond = LEAD_BARE.match(lead)
        if cond and not _TUTOR_TIME.match(cond["cond"]):
            return f"remind me to {task} {cond['cond']}"
        trailing = KEYWORDS.search(task) or CONCEPT.search(task)
        if (not lead or _discourse(lead)) and trailing and not _TUTOR_TIME.match(trailing.group(0)):
            return f"remind me to {task}"
    return None


def without_aside(what: str) -> str:
    """A trigger's topic without a clause of the learner's own after a comma.

    "when we set up the Flask project, my mate said I'll regret it": what follows the comma has a
    subject and a verb of its own, a remark, not a topic of a list ("HAVING, CTEs or window
    functions"); read as one, the remark became a keyword that any turn saying it would fire.
    """
    for cut in re.finditer(r"\s*[,;]\s*", what):
        roots = [t for t in parse(what[cut.end() :]) if t.dep_ == "ROOT"]
        if (
            roots
            and roots[0].pos_ in {"VERB", "AUX"}
            and any(c.dep_.startswith("nsubj") for c in roots[0].children)
        ):
            return what[: cut.start()]
    return what
