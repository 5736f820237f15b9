"""The read-time net: current facts about one thing that disagree, the learner's newest first.

Neither fact was closed at write time (the write was not sure they were one thing), so both
stay and the read orders them (``agent.memory.fact_reads``); the language layer says what is
one thing (``agent.language.same_thing``) and whose value a fact tells
(``agent.language.whose_value``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from agent.language.same_thing import (
    answer_groups,
    disagreeing,
    gives_a_new_value,
    merged,
)
from agent.language.whose_value import not_current, other_group
from agent.search.results import SearchHit


def newest_first(
    hits: list[SearchHit], vectors: np.ndarray, asked: np.ndarray | None = None
) -> list[SearchHit]:
    """The read-time safety net: current facts about the same thing that disagree, newest first.

    ``vectors``: one L2-normalised row per current fact hit, in order. Neither fact was closed
    (the write was not sure they were one thing), so both stay, in the places the group held,
    newest first; each older one carries ``was_until`` (the newest one's ``valid_from``) so an
    answer can say "was X until …". Other hits keep their places. Same thing: the statements
    alone (``same_thing.disagreeing``) or, with ``asked`` (the question's L2-normalised vector),
    the facts that answer the question about equally well with different values
    (``same_thing.answer_groups``). What tells no value of the learner's (a plan, a hedge, another
    person's or group's value: ``_learners_first``) takes the group's last places, so it never ranks
    above the learner's own value for the same thing.
    """
    facts = current_fact_places(hits)
    texts = [hits[i].text for i in facts]
    groups = disagreeing(texts, vectors)
    if asked is not None and len(facts) > 1:
        groups = merged([*groups, *answer_groups(vectors @ asked, texts, vectors=vectors, question=asked)])
    out = list(hits)
    best = None if asked is None or not facts else int(np.argmax(vectors @ asked))
    lead = None
    for group in groups:
        learners, aside = _learners_first([hits[i] for i in facts], group, texts)
        if len(learners) < 2 and not (learners and aside):
            continue
        places = sorted(facts[g] for g in group)
        # The learner's values newest first, then what tells no value of theirs, in the search's order.
        members = [hits[facts[g]] for g in _newest_first(learners, [hits[i] for i in facts])]
        newest = str(members[0].metadata.get("valid_from") or "")
        ordered = [(hit, str(hit.metadata.get("valid_from") or "") < newest) for hit in members]
        ordered += [(hits[facts[g]], False) for g in sorted(aside)]
        for place, (hit, older) in zip(places, ordered, strict=True):
            out[place] = replace(hit, metadata={**hit.metadata, "was_until": newest}) if older else hit
        if best in group:
            lead = places[0]
    return out if lead is None else _ahead(out, facts, [facts.index(lead)])


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
    facts: Sequence[SearchHit], group: list[int], texts: Sequence[str]
) -> tuple[list[int], list[int]]:
    """``group`` split into the learner's values and the members that tell none (``whose_value``).

    A plan, a hedge, another person's value ("My friend Karthik hit 1600") or another group's ("The
    marketing team got €6,000" beside "Our team's training budget is €4,000") may answer the question
    best and so anchor a group (``same_thing.answer_groups``), but it never becomes the newer version
    nor ranks above a value of the learner's for the same thing: it takes the group's last places.
    ``texts``: every current fact read (where the learner names their own group).
    """
    aside = [g for g in group if not_current(facts[g].text)]
    kept = [g for g in group if g not in aside]
    # the learner's own group may be told in a fact outside the group ("Our team's budget is …")
    aside += [
        g for g in kept if other_group(facts[g].text, [t for k, t in enumerate(texts) if k not in aside])
    ]
    return [g for g in group if g not in aside], aside


def current_fact_places(hits: Sequence[SearchHit]) -> list[int]:
    """Places of the current facts among ``hits`` (what the read-time net compares)."""
    return [i for i, h in enumerate(hits) if h.kind == "fact" and h.metadata.get("current", True)]
