"""The read-time net: current facts about one thing that disagree, the learner's newest first.

Neither fact was closed at write time (the write was not sure they were one thing), so both
stay and the read orders them (``agent.memory.fact_reads``); the language layer says what is
one thing (``agent.language.same_thing``) and whose value a fact tells
(``agent.language.whose_value``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

import numpy as np

from agent.language.about import clauses
from agent.language.answer_kinds import (
    NUMBER,
    PERSON,
    asked_kind,
    best_in_kind,
    calls_old,
    holds_kind,
    learners_name,
)
from agent.language.current_versions import not_current, other_group
from agent.language.grammar import entities, parse
from agent.language.numerals import current_value
from agent.language.people import person
from agent.language.question_net import ANSWER_FLOOR, answer_groups, answering_clause, nouns
from agent.language.same_thing import (
    brings_another_value,
    disagreeing,
    gives_a_new_value,
    merged,
    values,
)
from agent.language.whose_value import LEARNER, remark_of_another, whose
from agent.search.results import SearchHit


def newest_first(
    hits: list[SearchHit], vectors: np.ndarray, asked: np.ndarray | None = None, question: str = ""
) -> list[SearchHit]:
    """The read-time safety net: current facts about the same thing that disagree, newest first.

    ``vectors``: one L2-normalised row per current fact hit, in order. Neither fact was closed
    (the write was not sure they were one thing), so both stay, in the places the group held,
    newest first; each older one carries ``was_until`` (the newest one's ``valid_from``) so an
    answer can say "was X until …". Other hits keep their places. Same thing: the statements
    alone (``same_thing.disagreeing``) or, with ``asked`` (the question's L2-normalised vector),
    the facts that answer the question about equally well with different values
    (``question_net.answer_groups``). What tells no value of the learner's (a plan, a hedge, another
    person's or group's value: ``_learners_first``) takes the group's last places, so it never ranks
    above the learner's own value for the same thing. With ``question`` (its words), a later fact that
    calls the best answer's value the learner's old one joins it with the new value told beside it
    (``called_old``); a fact that hands on any earlier fact's value takes the group's last places
    (``handed_on``).
    """
    facts = current_fact_places(hits)
    texts = [hits[i].text for i in facts]
    groups = disagreeing(texts, vectors)
    kind = asked_kind(question)
    calling: list[int] = []
    if asked is not None and len(facts) > 1:
        found = answer_groups(
            vectors @ asked,
            texts,
            vectors=vectors,
            question=asked,
            kind=kind,
            focus=nouns(question),
        )
        told, calling = called_old(hits, facts, vectors, asked, question)
        calling += handed_on(hits, facts)
        groups = merged([*groups, *found, *told])
    out = list(hits)
    best = None if asked is None or not facts else best_in_kind(kind, texts, vectors @ asked, ANSWER_FLOOR)
    lead = None
    for group in groups:
        learners, aside = _learners_first([hits[i] for i in facts], group, texts, kind)
        # a fact that calls the best answer's value old tells no value of the learner's now
        learners, aside = (
            [g for g in learners if g not in calling],
            aside + [g for g in learners if g in calling],
        )
        if len(learners) < 2 and not (learners and aside):
            continue
        places = sorted(facts[g] for g in group)
        # The learner's values newest first, then what tells no value of theirs, in the search's order.
        order = _newest_first(learners, [hits[i] for i in facts])
        if asked is not None:
            order = _best_of_the_sitting(
                order, [hits[i] for i in facts], vectors @ asked, kind, _focus(question)
            )
        members = [hits[facts[g]] for g in order]
        newest = str(members[0].metadata.get("valid_from") or "")
        ordered = [(hit, str(hit.metadata.get("valid_from") or "") < newest) for hit in members]
        ordered += [(hits[facts[g]], False) for g in sorted(aside)]
        for place, (hit, older) in zip(places, ordered, strict=True):
            out[place] = replace(hit, metadata={**hit.metadata, "was_until": newest}) if older else hit
        if best in group:
            lead = places[0]
    if lead is None and best is not None and best != int(np.argmax(vectors @ asked)):
        lead = None if not_current(texts[best]) else facts[best]  # the closest holds no value of the kind
    return out if lead is None else _ahead(out, facts, [facts.index(lead)])


def called_old(
    hits: list[SearchHit], facts: list[int], vectors: np.ndarray, asked: np.ndarray, question: str
) -> tuple[list[list[int]], list[int]]:
    """The best answer and the new value told beside a later fact that calls its value old (indexes).

    Returns the group (none or one) and the facts that call the value old (they take the group's last
    places: they tell the old value, not a new one).

    "… took my old seat at <firm>" says the learner's firm in the best answer ("I'm an analyst at
    <firm>", an older introduction the question's words match best) is theirs no longer; the new one
    is told in the same sitting (``SITTING``: "my aunt got me a <laptop>" a minute before "the <old
    one> belongs to my cousin now") in words far from the question. Of that sitting's facts, the one
    closest to the question that holds the kind of value asked (``answer_kinds.holds_kind``) and
    another value than the best answer (``brings_another_value``) is its newer version. The old value
    is read in the best answer's clause that answers the question. When the closest fact itself hands
    its value on, the best answer is the closest earlier fact that tells that value.
    """
    if not question or len(facts) < 2:
        return [], []
    texts = [hits[i].text for i in facts]
    when = [str(hits[i].metadata.get("valid_from") or "") for i in facts]
    sims = vectors @ asked
    kind = asked_kind(question)
    best = int(np.argmax(sims))
    held = _answer_values(asked, texts[best], vectors[best], kind)
    passed = {word for v in held if calls_old(texts[best], v) for word in v.split()}
    if passed:
        # the closest fact tells its value passed on ("the <laptop> belongs to my brother now"): the
        # best answer is the closest earlier fact that tells that value as the learner's
        earlier = [
            k
            for k in range(len(texts))
            if when[k] < when[best]
            and passed & {w for v in _answer_values(asked, texts[k], vectors[k], kind) for w in v.split()}
        ]
        if not earlier:
            return [], []
        best = max(earlier, key=lambda k: sims[k])
        held = _answer_values(asked, texts[best], vectors[best], kind)
    calling = [
        k for k in range(len(texts)) if when[k] > when[best] and any(calls_old(texts[k], v) for v in held)
    ]
    if not calling:
        return [], []
    times = [at for k in calling if (at := _at(hits[facts[k]])) is not None]
    told = [
        k
        for k in range(len(texts))
        if (at := _at(hits[facts[k]])) is not None
        and any(abs(at - t) < SITTING for t in times)
        and k not in calling
        and not not_current(texts[k])
        and (kind is None or holds_kind(kind, texts[k]))
        and brings_another_value(texts[k], texts[best])
    ]
    return ([[best, max(told, key=lambda k: sims[k])]] if told else []), calling


def handed_on(hits: list[SearchHit], facts: list[int]) -> list[int]:
    """The facts (indexes into ``facts``) that tell a value of an earlier fact's as old or passed on.

    "the <old model> went to my little brother" a minute after "my parents got me a <new model>" tells
    no value of the learner's now, whichever fact answers the question best (``called_old`` reads only
    the best answer's values): ``answer_kinds.calls_old`` of any value an earlier fact holds.
    """
    when = [str(hits[i].metadata.get("valid_from") or "") for i in facts]
    texts = [hits[i].text for i in facts]
    held = [values(text) for text in texts]  # read once, not once per later fact and clause
    out = []
    for k, text in enumerate(texts):
        earlier = {v for o in range(len(texts)) if when[o] < when[k] for v in held[o]}
        # every clause holding a value hands one on ("sold my old <model> and bought a <new>" keeps its place)
        told = [text, *(c for c in clauses(text) if values(c))] if earlier else []
        if told and all(any(calls_old(c, v) for v in earlier) for c in told):
            out.append(k)
    return out


def _answer_values(asked: np.ndarray, text: str, row: np.ndarray, kind: str | None) -> set[str]:
    """The values of ``text`` that answer the question.

    Those of its answering clause, and of every clause that holds the kind asked (an introduction's
    "a support engineer at <firm>" for "where").
    """
    held = values(answering_clause(asked, text, row)[0])
    if kind is not None:
        held |= {v for clause in clauses(text) if holds_kind(kind, clause) for v in values(clause)}
    return held


def learners_ahead(
    hits: list[SearchHit], sims: dict[str, float], question: str, floor: float
) -> list[SearchHit]:
    """``hits`` with the learner's best fact ahead of a top fact that tells another person's value.

    "My friend finished the whole book in a weekend" may share more words with "How many pages has
    the learner read?" than the learner's own count; outside any group of the read-time net nothing
    kept it from the first place. Another's value is no answer about the learner: the first fact of
    the learner's own (``whose_value.whose``) at least ``floor`` close to the question passes it. Not
    when the question names whom the fact is about ("What does my sister do?": a word of the owner's).
    """
    facts = current_fact_places(hits)
    if len(facts) < 2:
        return hits
    owner = whose(hits[facts[0]].text)
    if owner == LEARNER or _people(owner) & _nouns(question):
        return hits
    first = next(
        (
            k
            for k in range(1, len(facts))
            if sims.get(hits[facts[k]].id, 0.0) >= floor and not not_current(hits[facts[k]].text)
        ),
        None,
    )
    return hits if first is None else _ahead(hits, facts, [first])


def _nouns(text: str) -> set[str]:
    """The lemmas of the nouns and names of ``text``."""
    return {t.lemma_.lower() for t in parse(text) if t.pos_ in {"NOUN", "PROPN"}}


def _people(owner: str) -> set[str]:
    """The lemmas of the persons ``owner`` names ("my friend Dana's draft": friend, Dana; not the draft)."""
    return {t.lemma_.lower() for t in parse(owner) if t.pos_ == "PROPN" or t.pos_ == "NOUN" and person(t)}


def _ahead(hits: list[SearchHit], facts: list[int], first: list[int]) -> list[SearchHit]:
    """``hits`` with the facts at ``first`` (indexes into ``facts``) moved to the first fact place.

    The group holding the question's best answer (by cosine) is what the question asks; the fused
    search may rank a weaker answer above it (an introduction that shares many words with the
    question). Its newest member, now at the group's first place, goes first; the facts it passes
    move down one place each. Other hits (messages) keep their places.
    """
    order = [facts[f] for f in first] + [p for k, p in enumerate(facts) if k not in first]
    out = list(hits)
    for place, source in zip(facts, order, strict=True):
        out[place] = hits[source]
    return out


SITTING = timedelta(hours=1)
"""Statements told this close in time are one sitting: one conversation, not two versions in time."""
SITTING_MARGIN = 0.08
"""Asked no kind, a member of the sitting whose cosine with the question is more than this below the
sitting's best is no answer (``_best_of_the_sitting``); leave-one-out over the sittings of A4's sets."""


def _focus(question: str) -> frozenset[str]:
    """The lemmas of the things ``question`` asks about ("lessons" of "When are the learner's lessons?")."""
    return nouns(question) - {"learner"} if question else frozenset()


def _names(text: str, focus: frozenset[str]) -> bool:
    """``text`` names a thing of ``focus`` (any word of it, by lemma: "so guitar is Thursdays now")."""
    return any(t.lemma_.lower() in focus for t in parse(text))


def _best_of_the_sitting(
    order: list[int],
    facts: Sequence[SearchHit],
    sims: np.ndarray,
    kind: str | None,
    focus: frozenset[str] = frozenset(),
) -> list[int]:
    """``order`` (newest first) with the best answer of the newest sitting first.

    Versions of a value are told days apart; a minute after "my uncle gave me his laptop" comes an
    aside ("he never lets me use it", "ok, back to SQL") the question net may group with it
    (``question_net.ANSWER_MARGIN``). When the newest member is no answer (``_answers``), the member of
    its sitting (``SITTING``) that is one, then the closest to the question, goes first. A newest
    member that answers keeps its place: a learner may correct a value within one conversation ("I
    live in Da Nang" … "These days I rent a flat in Hanoi"), and the demo tells its sessions minutes
    apart. Asked a number, a member holding the running total KAG computed ("… (now 23.5)") passes a
    number told a minute later (the whole club's total, as ``answer_kinds.answer_order`` reads it).
    The facts of one message keep ``_newest_first``'s order (the new value first). When the question
    names a thing (``focus``: "lessons") and a member of the sitting names it, after an older version,
    a member that does not is no answer: "… so our lessons are on Fridays now" then "I do the gym on
    Sundays" a minute later (a day of another activity, told after the change).
    """
    newest = _at(facts[order[0]])
    if newest is None:
        return order
    sitting = [
        g for g in order if (at := _at(facts[g])) is not None and newest - at < SITTING and at != newest
    ]

    # Asked no kind ("What is the learner's major?"), a name is a weak sign of an answer: a remark on
    # the new course a minute after the change ("we start with <topic>, <name>") holds one, the change
    # itself ("it's the <subject> degree for me now") none. A member that answers far worse than the
    # sitting's best is no answer. Only after an older version (a change told in this sitting): with
    # none, the sitting's best may be an introduction, close to every question about the learner.
    # (an older version the write closed counts: the member of the sitting that closed it says so)
    after_a_version = len(order) > len(sitting) + 1 or any(
        facts[g].metadata.get("superseded") for g in sitting
    )
    best = max(float(sims[g]) for g in [order[0], *sitting])
    # ... unless the newest member holds no value at all ("so now I can do class on <days>" a minute
    # after "from Monday I'm the receptionist …"): then the sitting's member that holds one answers
    judged = after_a_version and _answers(kind, facts[order[0]].text)
    floor = best - SITTING_MARGIN if kind is None and judged else -1.0

    # only after an older version: with none, the sitting may be a correction ("My laptop is a <old>" …
    # "Got a <new> from my aunt!", which names no laptop)
    named = {g for g in [order[0], *sitting] if after_a_version and focus and _names(facts[g].text, focus)}

    def key(g: int) -> tuple[bool, bool, float]:
        text = facts[g].text
        answers = _answers(kind, text) and float(sims[g]) >= floor and (not named or g in named)
        return answers, kind == NUMBER and current_value(text) is not None, float(sims[g])

    if not sitting or key(order[0])[0] and key(order[0])[:2] >= max(key(g)[:2] for g in sitting):
        return order
    best = max([order[0], *sitting], key=key)
    return order if best == order[0] else [best, *(g for g in order if g != best)]


def _answers(kind: str | None, text: str) -> bool:
    """``text`` may answer a question asking ``kind`` (None: a value of any kind).

    It holds a value of the kind (``answer_kinds.holds_kind``; any value of ``same_thing.values``
    but the learner's own name when the question asks no kind: "the tutorial I watched skipped it"
    holds none), and its sentence is a statement: a discourse move headed by an adverb or an
    interjection ("anyway, back to <topic>", "ok so") tells nothing, whatever name it carries.
    """
    held = holds_kind(kind, text) if kind else bool(values(text) - learners_name(text))
    return held and any(s.root.pos_ not in ("ADV", "INTJ") for s in parse(text).sents)


def _at(hit: SearchHit) -> datetime | None:
    """When ``hit`` was told (its ``valid_from``), or None when unknown."""
    try:
        return datetime.fromisoformat(str(hit.metadata.get("valid_from") or ""))
    except ValueError:
        return None


def _newest_first(group: list[int], facts: Sequence[SearchHit]) -> list[int]:
    """``group`` newest first; of the facts of one message (one ``valid_from``), the new value first.

    One message may give the new value and mention the old one ("The M4 MacBook Air is so much faster
    … The Chromebook went to my nephew"): the fact that holds a value no older member holds comes
    first, then the search's order.
    """
    when = {g: str(facts[g].metadata.get("valid_from") or "") for g in group}

    def key(g: int) -> tuple[str, bool]:
        older = [facts[o].text for o in group if when[o] < when[g]]
        return when[g], bool(older) and all(gives_a_new_value(facts[g].text, o) for o in older)

    return sorted(group, key=key, reverse=True)


def _learners_first(
    facts: Sequence[SearchHit], group: list[int], texts: Sequence[str], kind: str | None = None
) -> tuple[list[int], list[int]]:
    """``group`` split into the learner's values and the members that tell none (``whose_value``).

    A plan, a hedge, another person's value ("My friend Karthik hit 1600") or another group's ("The
    marketing team got €6,000" beside "Our team's training budget is €4,000") may answer the question
    best and so anchor a group (``question_net.answer_groups``), but it never becomes the newer version
    nor ranks above a value of the learner's for the same thing: it takes the group's last places.
    ``texts``: every current fact read (where the learner names their own group). Another person's
    words about the learner that hold no value the other members do not ("my classmate says I'll miss
    the <old laptop>'s keyboard") are no version either (``_restated``; ``kind``: the kind asked).
    """
    aside = [g for g in group if not_current(facts[g].text)]
    aside += [
        g
        for g in group
        if g not in aside and _restated(facts[g].text, [facts[o].text for o in group if o != g], kind)
    ]
    kept = [g for g in group if g not in aside]
    # the learner's own group may be told in a fact outside the group ("Our team's budget is …")
    aside += [
        g for g in kept if other_group(facts[g].text, [t for k, t in enumerate(texts) if k not in aside])
    ]
    return [g for g in group if g not in aside], aside


def _restated(text: str, others: Sequence[str], kind: str | None) -> bool:
    """``text`` is another's remark (``whose_value.remark_of_another``) holding no value ``others`` lack.

    The remark's speaker is no value of a thing asked ("Ana says …" for a laptop question), unless a
    person is asked.
    """
    if not remark_of_another(text):
        return False
    people = {n.lower() for *_, n, label in entities(text) if label == "PERSON"} if kind != PERSON else set()
    known = {word for o in others for v in values(o) for word in v.split()}  # "<model>" of "<brand> <model>"
    return all(set(v.split()) <= known for v in values(text) - people)


def current_fact_places(hits: Sequence[SearchHit]) -> list[int]:
    """Places of the current facts among ``hits`` (what the read-time net compares)."""
    return [i for i, h in enumerate(hits) if h.kind == "fact" and h.metadata.get("current", True)]
