"""An old value handed on after the new one; a conjunct's adjuncts before its subject (A10, session 49).

A fact that tells an earlier fact's value as passed on or old tells no value of the learner's now,
whichever fact answers the question best; a clause joined by "so"/"and" with a time or place before
its subject is its own clause, read for whose value it gives. Our own phrasings, none taken from a
scenario set.
"""

from __future__ import annotations

import numpy as np
import pytest

from agent.language.encoder import encode
from agent.language.whose_value import LEARNER, clause_owners
from agent.memory.fact_order import newest_first
from tests.unit.language.open_facts import open_fact

OLD, NEW, LATER = "2026-02-01T09:00:00+00:00", "2026-04-10T18:30:00+00:00", "2026-04-10T18:31:00+00:00"


def _first(question: str, facts: list[tuple[str, str]]) -> str:
    hits = [open_fact(f"f{i}", t, w) for i, (w, t) in enumerate(facts)]
    row = encode([question])[0]
    return newest_first(hits, encode([t for _, t in facts]), row / np.linalg.norm(row), question)[0].text


HANDED = [
    (
        "What laptop does the learner use?",
        "I use a Lenovo Yoga for everything",
        "my grandma got me a Dell XPS 15 for passing my exams",
        "the Yoga went to my cousin",
        "Dell",
    ),
    (
        "What phone does the learner have?",
        "My phone is a Pixel 6",
        "finally upgraded: my boss handed me a company iPhone 15 and I use it for everything",
        "the Pixel belongs to my mum now",
        "iPhone",
    ),
    pytest.param(
        "Which tablet does the learner read on?",
        "I read on a Kindle Paperwhite",
        "my partner bought me a Kobo Libra for our anniversary and I read on it every night",
        "gave the Kindle to my niece last weekend",
        "Kobo",
        marks=pytest.mark.xfail(
            reason="calls_old reads a gift only with the learner as subject", strict=True
        ),
    ),
    (
        "What camera does the learner shoot with?",
        "I shoot with a Canon EOS 250D",
        "my dad passed me his Sony A7 III, it's my camera now",
        "the Canon is my brother's now",
        "Sony",
    ),
    (
        "What computer does the learner program on?",
        "I program on an Acer Aspire",
        "for Christmas my uncle gave me a Mac Mini M2 which I program on now",
        "sold the Acer to my flatmate",
        "Mac",
    ),
    (
        "Which keyboard does the learner type on?",
        "I type on a Logitech K380",
        "a friend gifted me a Keychron K2 and I type on it all day",
        "the Logitech went to my sister",
        "Keychron",
    ),
    (
        "What laptop does the learner code on?",
        "I code on a HP Pavilion",
        "my company sent me a ThinkPad T14 to code on",
        "my old HP is with my nephew now",
        "ThinkPad",
    ),
    (
        "Which e-reader does the learner use?",
        "My e-reader is a Nook",
        "I got a PocketBook Era as a birthday present, it's what I use now",
        "the Nook belongs to my grandad now",
        "PocketBook",
    ),
    (
        "What phone does the learner have?",
        "I have a Galaxy S10",
        "my sister gave me her Galaxy S23 when she upgraded",
        "the S10 went to my little cousin",
        "S23",
    ),
    (
        "What console does the learner play on?",
        "I play on a PS4",
        "my parents surprised me with a Nintendo Switch and I play on it daily",
        "the PS4 went to my neighbour's kid",
        "Switch",
    ),
]


@pytest.mark.parametrize(("question", "old", "new", "handed", "expect"), HANDED)
def test_the_old_value_handed_on_after_the_new_one_never_goes_first(
    question: str, old: str, new: str, handed: str, expect: str
) -> None:
    assert expect in _first(question, [(LATER, handed), (NEW, new), (OLD, old)])


def test_a_friends_device_handed_on_is_no_old_value_of_the_learners() -> None:
    facts = [(OLD, "I use a Lenovo Yoga for everything"), (LATER, "my friend's Surface went to her brother")]
    assert "Yoga" in _first("What laptop does the learner use?", facts)


@pytest.mark.xfail(
    reason="the net groups the old fact with the sale's old clause (before this change too)", strict=True
)
def test_a_sale_told_with_the_new_purchase_keeps_its_place() -> None:
    facts = [(OLD, "I code on a ThinkPad E14"), (LATER, "I sold my old ThinkPad and bought a Dell XPS 13")]
    assert "Dell" in _first("What laptop does the learner code on?", facts)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "school news: Okonkwo left for Oslo, so from this term Dr. Meier marks my essays",
            "Meier",
        ),
        ("My tutor moved to Lyon, and since March Ms Berger has been the one teaching my class", "Berger"),
        ("quick update: Priya went on leave, so for the rest of the year Mr. Tan is my mentor", "Tan"),
        (
            "club email: the old coach retired, and starting next week Coach Alvarez runs my practice",
            "Alvarez",
        ),
        ("work stuff: Hamid changed teams, so as of today Lena is my manager", "Lena"),
        (
            "lab news: Kowalski got a grant abroad, so from January Dr. Osei supervises my thesis",
            "Osei",
        ),
        ("my landlord sold the flat, so from May on I rent from Mrs. Doyle", "Doyle"),
        ("dojo news: Sensei Ito moved to Osaka, and after the break Ms Sato is teaching my group", "Sato"),
        ("club drama: Bianca quit, so in her place Tomasz now leads my study group", "Tomasz"),
        ("the department reshuffled, and from this semester Prof. Haas is my advisor", "Haas"),
    ],
)
def test_a_conjuncts_adjuncts_before_its_subject_start_its_clause(text: str, name: str) -> None:
    owned = [owner for words, owner in clause_owners(text) if name in words]
    assert owned == [LEARNER]
