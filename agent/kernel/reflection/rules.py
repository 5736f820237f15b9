"""Offline reflection rules: struggle, error and breakthrough signals in what the learner wrote.

Reflection runs without a model, so everything it learns comes from these documented,
deterministic rules (unit-tested in ``tests/unit/kernel/test_reflection_rules.py``).

**Signals.** :func:`extract_signals` reads one learner statement (a message the learner
sent, a fact, a note) and returns the signals it carries, each about one concept:
``struggle`` ("I'm stuck on X", "X is hard"), ``error`` ("I keep getting X wrong"; the
error kind is the named exception or error class, else ``mistake``) and ``breakthrough``
("X finally clicked"). The phrasings are the patterns below.

**Anywhere.** When these phrasings find no struggle (or an error named away from its
concept), ``cues`` looks for a difficulty cue or the named error anywhere in the
statement and takes the run of content words nearest it ("Why are closures so hard?").

**Concepts.** The concept is the phrase after (or before) the cue: at most
``MAX_CONCEPT_WORDS`` words, cut at punctuation, function words and prepositions
("closures in JavaScript" -> "closures"). A note's or fact's own ``concept`` wins over the
phrase. :func:`canonical_concept` maps a phrase onto a concept the learner already has when
one's words contain the other's, or when exactly one known concept shares its head noun, so
"joins", "LEFT and INNER joins" and "SQL joins" are one concept.

**Day parts** (:func:`day_part`, UTC hours): night 0-6, morning 6-12, afternoon 12-18,
evening 18-24.

**Contradictions** (:func:`polarity_key`): two statements whose text is equal once the
negation ("not", "don't", "never", "no longer", ...) is removed, one negated and one not,
contradict each other ("I like Python" / "I don't like Python").
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from agent.clock import as_aware
from agent.kernel.reflection.cues import difficulty_concept, error_concept

STRUGGLE = "struggle"
ERROR = "error"
BREAKTHROUGH = "breakthrough"
SIGNAL_KINDS = (STRUGGLE, ERROR, BREAKTHROUGH)
MAX_CONCEPT_WORDS = 4
GENERIC_ERROR = "mistake"

_ARTICLES = frozenset(
    {"the", "a", "an", "my", "this", "these", "those", "that", "your", "our", "some", "all"}
)
_STOP_WORDS = """
    when because again and but so if while every each whenever since though although then still
    always anymore yet too also even just really at all today yesterday now lately recently anyway
    either which who where why how i you we they he she it is are was were be been being am do does
    did again sometimes often think guess feel find found believe honestly in on with for from using
    inside during once more
"""
_STOP = frozenset(_STOP_WORDS.split())
_LEADING = ("difference between", "differences between", "concept of", "idea of", "meaning of", "how to use")
_TRAILING = frozenset({"finally", "now", "really", "still", "totally", "completely"})
_WORD = r"[A-Za-z0-9][\w.+#'-]*"
_PHRASE = rf"(?P<c>{_WORD}(?:\s+{_WORD}){{0,7}})"
_FLAGS = re.IGNORECASE

_STRUGGLE_AFTER = [
    re.compile(rf"\b(?:confused|confusing|puzzled|lost)\s+(?:by|about|with|on|in)\s+{_PHRASE}", _FLAGS),
    re.compile(
        rf"\b(?:don'?t|do not|can'?t|cannot|still don'?t|never)\s+(?:really\s+|fully\s+|quite\s+)?"
        rf"(?:understand|get|grasp|follow)\s+{_PHRASE}",
        _FLAGS,
    ),
    re.compile(
        rf"\b(?:struggl\w*|stuck|having (?:a )?(?:hard time|trouble|difficulty)|"
        rf"have (?:a )?(?:hard time|trouble|difficulty)|difficulties|problems?)"
        rf"\s+(?:with|on|in|understanding|using|applying)\s+{_PHRASE}",
        _FLAGS,
    ),
    re.compile(
        rf"\b(?:go over|goes over|explain|re-?explain|walk me through|repeat)\s+{_PHRASE}"
        r"\s+(?:once more|one more time|again)\b",
        _FLAGS,
    ),
]
_STRUGGLE_NOT_CLICKING = re.compile(
    rf"(?P<c>{_WORD}(?:\s+{_WORD}){{0,3}})\s+(?:just\s+|still\s+|really\s+)?"
    r"(?:doesn'?t|does not|didn'?t|won'?t|don'?t|do not)\s+(?:really\s+)?(?:click|make sense)\b"
    rf"|(?P<d>{_WORD}(?:\s+{_WORD}){{0,3}})\s+makes? no sense\b",
    _FLAGS,
)
_STRUGGLE_BEFORE = re.compile(
    rf"(?P<c>{_WORD}(?:\s+{_WORD}){{0,3}})\s+(?:is|are)\s+(?:still\s+)?(?:so\s+|really\s+|very\s+|too\s+)?"
    r"(?:hard|difficult|confusing|tricky|impossible)\b",
    _FLAGS,
)
_ERROR_AFTER = [
    re.compile(rf"\b(?:keep|kept)\s+(?:getting|making|doing)\s+{_PHRASE}\s+wrong\b", _FLAGS),
    re.compile(rf"\b(?:got|get|getting|have|had)\s+{_PHRASE}\s+wrong\b", _FLAGS),
    re.compile(rf"\b(?:mistakes?|errors?|bugs?)\s+(?:in|with|on|when)\s+{_PHRASE}", _FLAGS),
    re.compile(
        rf"\b(?:failed|flunked|bombed|failing)\s+(?:the\s+|my\s+|a\s+|another\s+)?"
        rf"(?:quiz|test|exam|exercise|assignment)(?:zes)?\s+(?:on|about|for|in)\s+{_PHRASE}",
        _FLAGS,
    ),
]
_ERROR_NAMED = re.compile(
    r"\b(?P<kind>[A-Z][A-Za-z]*(?:Error|Exception)|off[- ]by[- ]one|syntax errors?|type errors?|"
    r"infinite loops?|index out of (?:range|bounds)|null pointers?|segfaults?|segmentation faults?)"
    rf"(?:\s+(?:errors?\s+)?(?:in|with|when|on|while|from)\s+{_PHRASE})?",
    _FLAGS,
)
_ERROR_CUE = re.compile(
    r"\b(?:keep|kept|again|always)\b.*\b(?:getting|get|got|hit|hitting|making|make)\b|\berror\b|\bwrong\b",
    _FLAGS,
)
_BREAKTHROUGH_AFTER = re.compile(
    rf"\b(?:finally|now)\s+(?:i\s+)?(?:understand|get|got|grasp)\s+{_PHRASE}", _FLAGS
)
_BREAKTHROUGH_BEFORE = re.compile(
    rf"(?P<c>{_WORD}(?:\s+{_WORD}){{0,3}})\s+(?:finally\s+)?(?:makes sense|clicked|finally clicked)\b", _FLAGS
)
_NEGATION = re.compile(
    r"\b(?:do not|does not|did not|don't|doesn't|didn't|not|never|no longer|isn't|aren't|won't|can't|"
    r"cannot)\b",
    _FLAGS,
)


@dataclass(frozen=True)
class Signal:
    """One signal in one statement: its kind, the concept (key and name) and an error kind."""

    kind: str
    """``struggle``, ``error`` or ``breakthrough``."""
    concept: str
    """The concept key (:func:`concept_key`)."""
    name: str
    """The concept as written (lower case), for insight texts."""
    error_kind: str | None = None
    """For errors: the named error (``KeyError``, ``off-by-one``) or ``mistake``."""


def concept_phrase(raw: str) -> str:
    """The concept phrase of a cue's capture: cut at function words, no article, <= 4 words."""
    words: list[str] = []
    raw = raw.strip()
    first, _, rest = raw.partition(" ")
    if first.lower() in _ARTICLES:
        raw = rest.strip()
    pair = False
    for lead in _LEADING:
        if raw.lower().startswith(lead + " "):
            raw, pair = raw[len(lead) + 1 :], lead.startswith("difference")
    tokens = raw.split()
    for i, word in enumerate(tokens):
        clean = word.strip(".,;:!?\"()[]{}'").lower()
        if pair and clean in {"and", "or"}:  # "the difference between A and B": keep both
            words.append(clean)
            continue
        loop = clean in {"while", "for"} and i + 1 < len(tokens) and tokens[i + 1].lower().startswith("loop")
        if not clean or (clean in _STOP and not loop) or clean in {"wrong", "again", "error", "errors"}:
            break
        if not words and clean in _ARTICLES:
            continue
        words.append(clean)
        if len(words) == MAX_CONCEPT_WORDS or word[-1:] in ".,;:!?":
            break
    while words and (words[-1] in _ARTICLES or words[-1] in _TRAILING or words[-1] in {"and", "or"}):
        words.pop()
    return " ".join(words)


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def concept_key(phrase: str) -> str:
    """The normalised key of a concept phrase ("The SQL Joins" -> "sql join")."""
    text = re.sub(r"[^\w.+#-]+", " ", str(phrase).lower()).replace("_", " ")
    words = [w.strip(".-") for w in text.split()]
    words = [w for w in words if w]
    while words and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(_stem(w) for w in words)


def canonical_concept(key: str, known: dict[str, str]) -> tuple[str, str] | None:
    """``(key, name)`` of the known concept ``key`` names (equal, or one's words contain the other's)."""
    if not key:
        return None
    if key in known:
        return key, known[key]
    words = set(key.split())
    best: tuple[int, str] | None = None
    for candidate in sorted(known):
        other = set(candidate.split())
        if words <= other or other <= words:
            score = len(words & other)
            if best is None or score > best[0]:
                best = (score, candidate)
    if best is not None:
        return best[1], known[best[1]]
    heads = [c for c in sorted(known) if c.split()[-1] == key.split()[-1]]
    return (heads[0], known[heads[0]]) if len(heads) == 1 else None


def _signal(
    kind: str, raw: str, known: dict[str, str], fixed: str | None, error_kind: str | None
) -> Signal | None:
    name = fixed or concept_phrase(raw)
    key = concept_key(name)
    if not key:
        return None
    mapped = canonical_concept(key, known)
    if mapped is not None:
        key, name = mapped
    return Signal(kind, key, name, error_kind)


def error_kind_of(text: str) -> str | None:
    """The named error in ``text`` (``KeyError``, ``off-by-one``, ``syntax error``), if any."""
    match = _ERROR_NAMED.search(text)
    if match is None:
        return None
    kind = match.group("kind")
    if kind[0].isupper() and kind.endswith(("Error", "Exception")) and " " not in kind:
        return kind
    kind = " ".join(kind.lower().replace("-", " ").split())
    kind = {"off by one": "off-by-one", "segfault": "segmentation fault"}.get(kind, kind)
    return kind[:-1] if kind.endswith("s") and not kind.endswith("ss") else kind


def extract_signals(
    text: str, *, concept: str | None = None, known: dict[str, str] | None = None
) -> list[Signal]:
    """The signals in one statement (see the module docstring); ``concept`` overrides the phrase.

    ``known`` maps the learner's concept keys to names (:func:`canonical_concept`).
    At most one signal per kind; a sentence both struggling and erring counts once each.
    """
    known = known or {}
    text = str(text or "")
    fixed = concept_phrase(concept) if concept else None
    found: dict[str, Signal] = {}

    def add(kind: str, raw: str, error_kind: str | None = None) -> None:
        if kind not in found:
            signal = _signal(kind, raw, known, fixed, error_kind)
            if signal is not None:
                found[kind] = signal

    named = _ERROR_NAMED.search(text)
    if named is not None and (named.group("c") or fixed):
        add(ERROR, named.group("c") or "", error_kind_of(text))
    for pattern in _ERROR_AFTER:
        match = pattern.search(text)
        if match:
            add(ERROR, match.group("c"), error_kind_of(text) or GENERIC_ERROR)
    if named is not None and ERROR not in found:
        kind = error_kind_of(text) or GENERIC_ERROR
        near = "" if fixed else error_concept(text, kind, MAX_CONCEPT_WORDS)  # the error named away from it
        if near:
            add(ERROR, near, kind)
        elif _ERROR_CUE.search(text):
            found[ERROR] = Signal(ERROR, "", "", kind)  # a named error, no concept
    for pattern in _STRUGGLE_AFTER:
        match = pattern.search(text)
        if match:
            add(STRUGGLE, match.group("c"))
    match = _STRUGGLE_BEFORE.search(text)
    if match:
        add(STRUGGLE, _tail_words(match.group("c")))
    match = _STRUGGLE_NOT_CLICKING.search(text)
    if match:
        add(STRUGGLE, _tail_words(match.group("c") or match.group("d")))
    match = _BREAKTHROUGH_AFTER.search(text)
    if match:
        add(BREAKTHROUGH, match.group("c"))
    match = _BREAKTHROUGH_BEFORE.search(text)
    if match:
        add(BREAKTHROUGH, _tail_words(match.group("c")))
    if STRUGGLE not in found and BREAKTHROUGH not in found:
        near = difficulty_concept(text, MAX_CONCEPT_WORDS)  # a difficulty cue elsewhere in the sentence
        if near:
            add(STRUGGLE, near)
    return [found[k] for k in SIGNAL_KINDS if k in found]


def _tail_words(raw: str) -> str:
    """The words of a capture before the cue, from the last function word on ("I think joins" -> "joins")."""
    words = raw.split()
    while words and (words[-1].lower() in _STOP or words[-1].lower() in _TRAILING):
        words.pop()  # "closures just (doesn't click)": the adverb is not the concept
    cut = 0
    for i, word in enumerate(words):
        if word.lower().strip(".,;:!?") in _STOP:
            cut = i + 1
    return " ".join(words[cut:])


def day_part(at: str | datetime) -> str:
    """``night`` (0-6 UTC), ``morning`` (6-12), ``afternoon`` (12-18) or ``evening`` (18-24)."""
    when = as_aware(datetime.fromisoformat(at) if isinstance(at, str) else at)
    hour = when.astimezone(UTC).hour
    return ("night", "morning", "afternoon", "evening")[hour // 6]


def utc_text(at: object) -> str:
    """``at`` (ISO-8601) as UTC ISO-8601, so texts compare in time order; unparsable: ``""``."""
    try:
        return as_aware(datetime.fromisoformat(str(at))).astimezone(UTC).isoformat()
    except (TypeError, ValueError):
        return ""


def polarity_key(text: str) -> tuple[str, bool]:
    """``(text without its negation, negated?)`` of a statement (lower case, single spaces)."""
    norm = " ".join(str(text).lower().split()).rstrip(" .!;,")
    negated = bool(_NEGATION.search(norm))
    base = " ".join(_NEGATION.sub(" ", norm).split())
    return base, negated


def contradicts(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` say the same thing with opposite polarity."""
    base_a, neg_a = polarity_key(a)
    base_b, neg_b = polarity_key(b)
    return bool(base_a) and base_a == base_b and neg_a != neg_b


def stable_id(prefix: str, *parts: str) -> str:
    """``prefix-<sha256 of the parts>``: the deterministic id of an insight or pattern."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]
    return f"{prefix}-{digest}"
