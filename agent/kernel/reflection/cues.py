"""Position-free cues: a struggle or an error anywhere in a statement, and the concept nearest it.

``rules`` reads signals from fixed phrasings ("I'm confused by X", "X is hard"), so a
statement that says the same thing in another order ("Why is X so hard?", "I find X
really difficult", "I'm not getting X at all") or names an error away from its concept
("Got a KeyError again when I did the pandas merge") carried no signal, or one with no
concept. This module is the fallback ``rules.extract_signals`` uses when its phrasings
found nothing for a kind:

- **difficulty cue**: a word of the difficulty lexicon ``rules``' phrasings already use,
  not negated ("not hard" is no struggle), or a negated understanding verb ("never
  understood"). No new vocabulary: what generalises is that the cue may sit anywhere;
- **error cue**: a named error kind (``rules.error_kind_of``) anywhere;
- **concept**: the run of content words nearest the cue (ties: the run after it), at most
  ``rules.MAX_CONCEPT_WORDS`` words.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[A-Za-z0-9][\w.+#'’-]*")
_DIFFICULTY = re.compile(
    r"^(?:confus\w*|puzzl\w*|lost|struggl\w*|stuck|troubles?|difficult\w*|hard|harder|tricky|impossible)$"
)
_UNDERSTAND = re.compile(
    r"^(?:understand\w*|understood|get|gets|getting|got|grasp\w*|follow\w*|click\w*|sense)$"
)
_NEGATOR = re.compile(
    r"^(?:not|no|never|cannot|can't|don't|doesn't|didn't|won't|isn't|aren't|wasn't|can’t|don’t|doesn’t)$"
)
_FUNCTION_WORDS = """
    a an the my your our their his her its this that these those some any all every each no
    i i'm i've i'd i'll me mine you we us they them he him she it it's one
    is are was were be been being am do does did done have has had having can could will would
    should may might must shall 'm 're 've 'll 'd
    in on at by with about of to from for into onto over under around after before between through
    across up down out off than as like
    and or but so if when while because since though although then yet nor
    very really too again still just once more even always never ever already also only quite
    totally completely finally now today yesterday lately recently anyway sometimes often
    how why what where who which whose whenever
    get gets got getting make makes made making keep keeps kept keeping hit hits go goes going went
    think thought guess feel felt find found know knew try tried trying seem seems need want
    same another other time times please honestly ok okay yes
    not don't doesn't didn't can't cannot won't isn't aren't wasn't
"""
_FUNCTION = frozenset(_FUNCTION_WORDS.split())


def _clean(token: str) -> str:
    return token.lower().replace("’", "'").strip(".,;:!?\"()[]{}'")


def _runs(words: list[str], skip: set[int]) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of content words (end exclusive)."""
    runs, start = [], None
    for i, word in enumerate([*words, ""]):
        content = bool(word) and i not in skip and word not in _FUNCTION and not word.isdigit()
        if content and start is None:
            start = i
        elif not content and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _nearest(words: list[str], cue: tuple[int, int], skip: set[int], max_words: int) -> str:
    best: tuple[int, int, str] | None = None
    for start, end in _runs(words, skip):
        after = start >= cue[1]
        distance = start - cue[1] if after else cue[0] - end
        if distance < 0:
            continue  # overlaps the cue
        phrase = " ".join(words[start:end][:max_words] if after else words[start:end][-max_words:])
        rank = (distance, 0 if after else 1, phrase)
        if best is None or rank < best:
            best = rank
    return best[2] if best else ""


def difficulty_concept(text: str, max_words: int) -> str | None:
    """The concept of the first difficulty cue in ``text`` (``""``: a cue, no concept; ``None``: no cue)."""
    words = [_clean(t) for t in _TOKEN.findall(text)]
    for i, word in enumerate(words):
        negated = any(_NEGATOR.match(w) for w in words[max(0, i - 2) : i])
        if _DIFFICULTY.match(word) and not negated:
            return _nearest(words, (i, i + 1), {i}, max_words)
        if _UNDERSTAND.match(word) and negated:
            start = max(j for j in range(max(0, i - 2), i) if _NEGATOR.match(words[j]))
            return _nearest(words, (start, i + 1), set(range(start, i + 1)), max_words)
    return None


def error_concept(text: str, kind: str, max_words: int) -> str:
    """The concept nearest the named error ``kind`` in ``text`` (``""`` when none)."""
    words = [_clean(t) for t in _TOKEN.findall(text)]
    kind_words = set(kind.lower().replace("-", " ").split()) | {
        kind.lower(),
        "error",
        "errors",
        "bug",
        "bugs",
    }
    skip = {i for i, w in enumerate(words) if w in kind_words or w.rstrip("s") in kind_words}
    hits = [i for i in sorted(skip) if words[i] not in {"error", "errors", "bug", "bugs"}] or sorted(skip)
    if not hits:
        return ""
    return _nearest(words, (hits[0], hits[-1] + 1), skip, max_words)
