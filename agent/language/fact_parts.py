"""What one learner message stores as facts: its statement part, its clauses, the learner's only.

``stated_part`` is the statement a question carries before its question clause ("Moved to
Rotterdam last week so which Dutch course …?"); ``now_part`` drops the clauses that are no value
the learner has now (a plan or hedge: ``agent.language.current_values``; another person's value:
``agent.language.whose_value``); ``fact_parts`` cuts a statement into the clauses that fill
different slots ("I'm Aino, and I rent a room in Tartu": a name and a home, not the whole in the
name slot). Which slot a clause fills and what is a fact: ``agent.language.facts``. Measured by
``python -m bench.fact_write_knobs``.
"""

from __future__ import annotations

import re

from agent.language.about import CLAUSE_WORDS
from agent.language.current_values import maybe
from agent.language.current_versions import learners_now
from agent.language.facts import (
    NAME_SLOT,
    PART_CUT,
    fact_slot,
    is_fact_statement,
    standalone,
    tells_a_part_of_life,
)
from agent.language.grammar import parse
from agent.language.own_values import has_a_value
from agent.language.questions import AUXILIARY, is_question
from agent.language.whose_value import LEARNER, clause_owners

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
_TAG = re.compile(r",\s*(?:[^\W\d_]+\s+)?[^\W\d_]+\W*\?+\W*$")
"""A tag of one or two words after a statement ("…, yay?", "…, typical huh?"): it asks nothing of
what was stated. Two words, by leave-one-out over question_pairs_tagged.json (one word misses a
two-word tag there; the head must be a statement either way, so a longer tail adds no wrong fact)."""
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
    to Kotlin?" -> "my team moved to Kotlin"); before a short tag ("Got 7.5 this time, finally,
    right?" -> "Got 7.5 this time, finally"). Not a supposition ("If I switch to Linux, can I
    …?"), not a clause that names no value ("I'm confused, what does yield do?").
    """
    if not isinstance(text, str) or not is_question(text):
        return None
    tag = _TAG.search(text)
    head = text[: tag.start()] if tag is not None else ""
    if head and not (is_question(head) or AUXILIARY.match(_OPENER.sub("", head))):
        told = _stated(head)  # "June 9 now, three more days, yay?": the tag asks nothing of it
        if told is not None:
            return told
    for cut in _ASK_CUT.finditer(text):
        head, tail = text[: cut.start()].strip(), text[cut.end() :].strip()
        if head and _opens_question(tail):
            return _stated(head)
    reason = _BECAUSE.search(text)
    if reason is not None and _opens_question(text[: reason.start()] + "?"):
        return _stated(text[reason.end() :])
    return None


def now_part(text: str) -> str:
    """``text`` without its clauses that are no value the learner has now ("" when none is one).

    A plan, wish, offer or hedge (``agent.language.current_values``), or another person's value
    (``agent.language.whose_value``), cut where a clause starts with its own subject ("My stipend is
    500 euros a month; my flatmate gets 650 because she's in medicine" -> "My stipend is 500 euros a
    month"; "Did another 9 this week, my colleague Rui finished all 40" -> "Did another 9 this week").
    """
    if maybe(text):
        return ""  # an offer hedged in a later clause ("…offered me a room in Porto, I won't take it")
    pieces: list[
        tuple[int, int, bool]
    ] = []  # each clause's span in ``text``, and whether it is the learner's now
    learners = False  # another's clause is context only beside a clause of the learner's
    at = 0
    for cut in [*PART_CUT.finditer(text), None]:
        end = len(text) if cut is None else cut.start()
        # "…, my colleague Rui finished all 40": a clause of another's, read in its sentence
        owners = clause_owners(text[at:end].strip())
        learners = learners or any(owner == LEARNER for _, owner in owners)
        for piece, owner in owners:
            start = max(text.find(piece, at), at)
            # another's clause without a value of its own is context ("Grandma chipped in, so …")
            pieces.append(
                (start, start + len(piece), (owner == LEARNER or not has_a_value(piece)) and not maybe(piece))
            )
            at = start + len(piece)
        at = end if cut is None else cut.end()
    if not learners:
        return ""  # "My flatmate Ignacio does civil engineering now, he got my old calculators"
    kept = [i for i, (_, _, now) in enumerate(pieces) if now]
    if len(kept) == len(pieces):
        return text
    if kept and kept == list(range(kept[0], kept[-1] + 1)):
        # one run of the learner's clauses keeps its own words ("Week two with the B2 group and wow
        # they are fast — the teacher speaks only Spanish", its hedge "I catch maybe 60%" cut)
        run = text[pieces[kept[0]][0] : pieces[kept[-1]][1]].strip(" ,;—-")
        return run if len(run.split()) >= CLAUSE_WORDS and is_fact_statement(run) else ""
    # what is left must be a statement of its own ("Funny thing" of "Funny thing, my dad trades …" is none)
    parts = [text[a:b] for a, b, now in pieces if now]
    return "; ".join(p for p in parts if len(p.split()) >= CLAUSE_WORDS and is_fact_statement(p))


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
    for cut in [*PART_CUT.finditer(text), None]:
        end = len(text) if cut is None else cut.start()
        piece = text[at:end].strip()
        previous = text[spans[-1][0] : spans[-1][1]] if spans else ""
        short = len(previous.split()) < CLAUSE_WORDS and fact_slot(previous) is None
        if spans and (short or not standalone(piece)):
            spans[-1][1] = end
        elif piece:
            spans.append([at, end])
        at = end if cut is None else cut.end()
    parts = [text[a:b].strip() for a, b in spans]
    slots = [fact_slot(p) for p in parts]
    if len(parts) < 2 or len(set(slots)) < 2 or None in slots or NAME_SLOT in slots:
        return [text]  # a value beside a clause in a slot, or a name, stays with it (docstring)
    return parts


def completed(spans: list[tuple[int, str]], text: str) -> list[tuple[int, str]]:
    """``spans`` (``sentence_spans`` of ``text``), each value fragment joined to the statement it completes.

    "the faculty postponed the orgo final because the hall is being renovated. June 23 now.": the
    second sentence has no verb and holds a number; alone it names nothing the value belongs to
    (stored, it never ranked for "when is my final?"), so it is read with the sentence before it.
    Only after a statement with a verb and no number of its own, and never after a question: a
    greeting ("hi! Amara, 3rd year …") or a sentence that has its value ("Did 40 today. 2 hours.")
    keeps its fragment apart. Read on the parse (parts of speech), not on words.
    """
    out: list[tuple[int, str]] = []
    for start, sentence in spans:
        if out and _fragment_value(sentence) and _open_statement(out[-1][1]):
            begin = out[-1][0]
            out[-1] = (begin, text[begin : start + len(sentence)])
            continue
        out.append((start, sentence))
    return out


def _fragment_value(sentence: str) -> bool:
    """No verb, a number, no question ("June 23 now.", "450 euros each.")."""
    verb, number = _verb_and_number(sentence)
    return not verb and number and not is_question(sentence)


def _open_statement(sentence: str) -> bool:
    """A statement with a verb and no number of its own, which a value fragment may complete."""
    verb, number = _verb_and_number(sentence)
    return verb and not number and not is_question(sentence) and not sentence.rstrip().endswith("?")


def _verb_and_number(sentence: str) -> tuple[bool, bool]:
    """Whether ``sentence`` has a verb (or auxiliary), and whether it has a number, by the parse."""
    doc = parse(sentence)
    return any(t.pos_ in {"VERB", "AUX"} for t in doc), any(t.like_num for t in doc)
