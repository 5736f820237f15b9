"""Offline rules for procedural memory: spot a procedure the learner states, and a request for one.

No model is involved; the rules are deliberately general (they do not know SQL).

**A procedure statement** (``parse_procedure``) has an *introduction* that names a
task in the first person, followed by the steps:

- "Here is / Here's / This is / That's how I <task> [now|these days|usually]: <steps>"
- "How I <task>: <steps>" · "The way I <task> is: <steps>"
- "My steps / procedure / process / method / routine / recipe for <task> [is|are]: <steps>"
- "To <task>, I <steps>" · "When I <task>, I <steps>"

The name is the task ("write a LEFT JOIN"), with trailing time words and the speaker's asides
dropped ("complete the square, tell me if it's wrong": ``procedure_names.trimmed``).
**Steps** are split, in this order of preference, on

1. a list whose marks count up from one (``find_listed``: "1. … 2. …", "(1)", "b)", "Step 3",
   "Step two,", "First, … Second, …", "- …" on new lines);
2. semicolons;
3. sequence markers at a clause start (text start, after ``,`` ``;`` ``.`` or "and"):
   first(ly), second(ly), third(ly), then, next, after that, afterwards, finally, lastly,
   at the end, in the end, at last, to finish, "and only then", "only then".

Markers inside a clause ("pick the first table") do not split. Step text keeps the
learner's words (so "table whose rows I must keep" stays findable), without the marker
and edge punctuation. A statement is a procedure only with at least two steps.

A procedure told without such an introduction ("first I bump the version, then …") is read
by ``agent.language.told_procedures`` from the parse.

**A procedure request** (``is_procedure_request``) asks for the learner's *own* steps:
"how do/did/should I <task> again?", "what were/are my steps (for …)?", "my procedure /
method for …", "remind me how I/to …", "I forgot / don't remember / can't recall how I/to …",
"walk me through my steps", "how do I usually …" (a frequency adverb of the learner's), and
"what's my (morning) routine / workflow …?" (a noun of ``_KINDS`` in a question, or with
"I can't remember"; not in a remark: "Music is part of my routine."). A plain "how do I
<task>?" without a recall marker (again, my, forgot, remember, usually, …) is a tutoring
question, not a request for a stored procedure.
``procedure_query`` gives the words to search with: the task when one is named, else
the request's content words (also when the task is a pronoun: "how do I resolve it again"
refers to something named elsewhere in the message).
"""

from __future__ import annotations

import re
from functools import lru_cache

from agent.language.procedure_names import trimmed
from agent.text import QUERY_STOP_WORDS

MIN_STEPS = 2
MAX_STEPS = 30

_TIME_TAIL = r"(?:\s+(?:now|nowadays|these\s+days|usually|normally|today|always))*"
_KINDS = r"steps|procedure|process|method|routine|recipe|checklist|workflow"
"""What a learner calls their own way of doing something ("my steps for …", "my checklist to …")."""
_FORGOT = r"forgot|forget|forgotten"
_HABIT = r"(?:usually|normally|typically|generally|always)"
"""Frequency adverbs: "How do I usually …" asks for the learner's habit (their own steps)."""
_INTROS = (
    # "Here is how I write a LEFT JOIN now: ..."
    re.compile(
        r"(?:here\s+is|here's|this\s+is|that's|that\s+is)\s+(?:how|the\s+way)\s+I\s+"
        r"(?P<name>[^:]+?)" + _TIME_TAIL + r"\s*[:\-\u2013\u2014]\s*(?P<body>.+)",
        re.I | re.S,
    ),
    re.compile(r"^\s*how\s+I\s+(?P<name>[^:]+?)" + _TIME_TAIL + r"\s*:\s*(?P<body>.+)", re.I | re.S),
    re.compile(
        r"the\s+way\s+I\s+(?P<name>[^:]+?)" + _TIME_TAIL + r"\s+is\s*:?\s*(?P<body>.+)",
        re.I | re.S,
    ),
    re.compile(
        rf"my\s+(?:{_KINDS})\s+(?:for|to)\s+"
        r"(?P<name>[^:]+?)" + _TIME_TAIL + r"\s*(?:(?:is|are)\s*:?|:)\s*(?P<body>.+)",
        re.I | re.S,
    ),
    re.compile(
        r"^\s*(?:to|when(?:ever)?\s+I)\s+(?P<name>[^,:]+?)"
        + _TIME_TAIL
        + r"\s*[,:]\s*I\s+(?:always\s+)?(?P<body>.+)",
        re.I | re.S,
    ),
)

_MARKER = (
    r"(?:and\s+)?(?:only\s+then|after\s+that|afterwards|and\s+then|then|next|finally|lastly|"
    r"at\s+the\s+end|in\s+the\s+end|at\s+last|to\s+finish|"
    r"first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?)\b"
)
_MARKER_SPLIT = re.compile(r"(?:^|[,;.]\s*|\s+and\s+)\s*" + _MARKER + r"\s*,?\s*", re.I)
_BULLET = re.compile(r"(?:^|\n)\s*[-*\u2022]\s+")
_ENUMERATOR = re.compile(
    r"(?P<step>\bstep\s+)?"
    r"(?:\((?P<paren>\d{1,2}|[a-z])\)|\b(?P<mark>\d{1,2}|[a-z]|[a-z]+?)(?:ly)?(?P<close>\s*[.):,]|(?=\s)))"
    r"(?=\s)",
    re.I,
)
"""A candidate item mark: "(1)", "(a)", "1.", "2)", "b)", "Step 3", "Step two,", "Third,". What it counts
is read by ``_enumerated`` (digits, letters, spaCy's English number and ordinal words); a mark is an
item's only when the marks run 1, 2, 3 … (``_runs``), so "add 2 drops" or "a second pan" is none."""
_ITEM_START = re.compile(r"(?:^|[.;:,!?\n])\s*$")
"""What comes right before a mark without "step" or parentheses: the text start or a clause end."""
_EDGE = re.compile(r"^[\s,;:.\-]+|[\s,;:.\-]+$")
_LEAD_AND = re.compile(r"^(?:and|I)\s+", re.I)


def _clean(step: str) -> str:
    step = _EDGE.sub("", step)
    step = _LEAD_AND.sub("", step)
    return _EDGE.sub("", re.sub(r"\s+", " ", step))


@lru_cache(maxsize=1)
def _number_words() -> tuple[dict[str, int], dict[str, int]]:
    """Cardinal and ordinal number words and their values, from spaCy's English tables."""
    from spacy.lang.en.lex_attrs import _num_words, _ordinal_words

    return {w: i for i, w in enumerate(_num_words[:21])}, {
        w: i + 1 for i, w in enumerate(_ordinal_words[:20])
    }


def _enumerated(match: re.Match[str], text: str) -> tuple[str, int] | None:
    """``(kind, value)`` of an item mark, or None when the match counts nothing at an item start.

    Kinds do not mix: a list counts in digits, in letters, in parenthesised marks or in ordinals.
    """
    cardinals, ordinals = _number_words()
    if match["paren"]:
        mark = match["paren"].lower()
        return ("(1)", int(mark)) if mark.isdigit() else ("(a)", ord(mark) - 96)
    mark, close = match["mark"].lower(), (match["close"] or "").strip()
    at_start = bool(_ITEM_START.search(text[: match.start()]))
    if match["step"]:
        value = int(mark) if mark.isdigit() else cardinals.get(mark)
        return ("1", value) if value else None
    if mark.isdigit():
        return ("1", int(mark)) if close in {".", ")", ":"} else None
    if len(mark) == 1:
        return ("a", ord(mark) - 96) if close == ")" or (close == "." and at_start) else None
    value = ordinals.get(mark) or ordinals.get(match["mark"].lower())
    return ("first", value) if value and at_start else None


def _runs(marks: list[tuple[int, int, str, int]]) -> list[tuple[int, int]]:
    """The longest run of marks of one kind counting 1, 2, 3 …: ``[(start, end)]`` of each mark."""
    best: list[tuple[int, int]] = []
    for kind in {k for _, _, k, _ in marks}:
        run: list[tuple[int, int]] = []
        for start, end, k, value in marks:
            if k == kind and value == len(run) + 1:
                run.append((start, end))
        if len(run) > len(best):
            best = run
    return best


def find_listed(text: str) -> tuple[int, list[str]] | None:
    """``(where the list starts, its items)`` of a numbered, lettered, ordinal or bulleted list in ``text``.

    Items are marked "1." "2)" "(3)" "Step 4" "Step five," "a)" "First," "Second," or "- " on new lines,
    counting up from one; the text before the first mark introduces the list. None without one.
    """
    if not isinstance(text, str):
        return None
    marks = []
    for match in _ENUMERATOR.finditer(text):
        read = _enumerated(match, text)
        if read is not None:
            marks.append((match.start(), match.end(), *read))
    run = _runs(marks)
    if len(run) < MIN_STEPS:
        bullets = list(_BULLET.finditer(text))
        run = [(m.start(), m.end()) for m in bullets]
    if len(run) < MIN_STEPS:
        return None
    ends = [start for start, _ in run[1:]] + [len(text)]
    steps = [_clean(text[end:stop]) for (_, end), stop in zip(run, ends, strict=True)]
    steps = [s for s in steps if s]
    return (run[0][0], steps[:MAX_STEPS]) if len(steps) >= MIN_STEPS else None


def split_listed(body: str) -> list[str] | None:
    """The items of a numbered or bulleted list in ``body`` (``find_listed``), None without one."""
    found = find_listed(body)
    return found[1] if found else None


def split_steps(body: str) -> list[str]:
    """The ordered steps of ``body`` (a list, semicolons or sequence markers; see module doc)."""
    body = body.strip()
    listed = split_listed(body)
    if listed is not None:
        return listed
    if body.count(";") >= 1:
        steps = [_clean(p) for p in body.split(";") if _clean(p)]
        if len(steps) >= MIN_STEPS:
            return [s for part in steps for s in (_by_markers(part) or [part])][:MAX_STEPS]
    return _by_markers(body)[:MAX_STEPS]


def _by_markers(body: str) -> list[str]:
    parts = _MARKER_SPLIT.split(body)
    return [_clean(p) for p in parts if _clean(p)]


def parse_procedure(text: str) -> tuple[str, list[str]] | None:
    """``(name, ordered steps)`` when ``text`` states a procedure of the learner, else None."""
    if not isinstance(text, str) or not text.strip():
        return None
    for intro in _INTROS:
        match = intro.search(text)
        if match is None:
            continue
        name = trimmed(_clean(match.group("name")))
        steps = split_steps(match.group("body"))
        if name and len(steps) >= MIN_STEPS:
            return name, steps
    return None


# ----- requests -----

_TASK_PATTERNS = (
    re.compile(
        r"how\s+(?:do|did|should|would|can|could|was)\s+I\s+(?:supposed\s+to\s+)?(?P<task>[^,?.!;]+?)"
        r"(?:\s+again\b|\s*[,?.!;]|$)",
        re.I,
    ),
    re.compile(
        rf"(?:{_FORGOT}|remember|recall|remind\s+me)\s+how\s+(?:I|to)\s+"
        r"(?P<task>[^,?.!;]+?)(?:\s+again\b|\s*[,?.!;]|$)",
        re.I,
    ),
    re.compile(
        rf"(?:{_KINDS})\s+(?:for|to)\s+"
        r"(?P<task>[^,?.!;]+?)(?:\s+again\b|\s*[,?.!;]|$)",
        re.I,
    ),
)
_RECALL_MARKERS = re.compile(
    rf"\bagain\b|\bmy\s+(?:[\w-]+\s+){{0,2}}?(?:{_KINDS}|way)\b|\bI\s+{_HABIT}\b"
    rf"|\b(?:{_FORGOT}|(?:don't|do\s+not|can't|cannot)\s+(?:remember|recall))\b"
    r"|\bremind\s+me\s+how\b|\bwhat\s+(?:were|are)\s+(?:the|my)\s+steps\b|\bwalk\s+me\s+through\b"
    r"|\bhow\s+did\s+I\b",
    re.I,
)
_HOW = re.compile(r"\bhow\b|\bsteps?\b|\bprocedure\b|\bmethod\b|\bprocess\b|\bwalk\s+me\s+through\b", re.I)
_KIND = re.compile(rf"\b(?:{_KINDS})\b", re.I)
_ASKS = re.compile(
    r"\?\s*$|^\s*(?:what|which|how|tell|show|give)\b"
    r"|\b(?:forgot|forgotten|(?:don't|do\s+not|can't|cannot)\s+(?:remember|recall))\b",
    re.I,
)
"""A question, or a learner who has lost something: what makes "my routine" a request, not a remark."""
_PRONOUN = re.compile(r"\b(?:it|this|that|these|those|them|one)\b", re.I)
_SEARCH_DROP = frozenset(
    {"again", "steps", "step", "forgot", "forget", "procedure", "method", "process", "routine"}
)


def is_procedure_request(text: str) -> bool:
    """True when ``text`` asks for the learner's own stored steps (see module doc)."""
    if not isinstance(text, str) or not text.strip() or parse_procedure(text) is not None:
        return False
    if re.search(r"\bremind\s+me\s+(?:to|about|that)\b", text, re.I):
        return False  # a reminder request, not a procedure request
    how = _HOW.search(text) or (_KIND.search(text) and _ASKS.search(text))
    return bool(how and _RECALL_MARKERS.search(text))


def procedure_task(text: str) -> str | None:
    """The task a request names ("write a LEFT JOIN"), or None."""
    for pattern in _TASK_PATTERNS:
        for match in pattern.finditer(text):
            task = _clean(match.group("task"))
            if task and not _PRONOUN.search(task):
                return task
    return None


def procedure_query(text: str) -> str:
    """Search words for a procedure request: the task when named, else the content words."""
    task = procedure_task(text)
    source = task if task is not None else text
    words = [w for w in re.findall(r"[\w'-]+", source) if w.lower() not in _SEARCH_DROP]
    if task is None:
        words = [w for w in words if w.lower() not in QUERY_STOP_WORDS]
    return " ".join(words) if words else source.strip()
