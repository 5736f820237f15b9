"""What a statement is about, and the read-time net that uses it (``agent.language.about``)."""

from __future__ import annotations

import pytest

from agent.language.about import OTHER, about, parts
from agent.language.encoder import encode
from agent.language.same_thing import new_value_of_kind, same_pairs, told_parts
from agent.language.shifts import shift, value_kind
from agent.memory.fact_order import newest_first
from tests.unit.language.open_facts import open_fact


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("I repair bicycles at a shop near the station.", "job"),
        ("Our flat is in Bologna, next to the market.", "home"),
        ("My degree is in geography.", "study"),
        ("Hungarian is what I practise each night now.", "language"),
        ("I keep my scripts in a GitHub repository.", "tool"),
        ("My statistics final is on June 12.", OTHER),
    ],
)
def test_what_a_statement_is_about(text: str, part: str) -> None:
    assert about(text) == part


def test_a_new_home_in_other_words_ranks_first_though_the_sentences_differ() -> None:
    old = open_fact("a", "Our flat is in Bologna, next to the market.", "2026-01-10T00:00:00+00:00")
    other = open_fact("c", "My statistics final is on June 12.", "2026-01-12T00:00:00+00:00")
    new = open_fact(
        "b", "Greetings from a tiny apartment in Turin where we live now.", "2026-03-01T00:00:00+00:00"
    )
    vectors = encode([old.text, other.text, new.text])
    assert float(vectors[0] @ vectors[2]) < 0.49  # cosine alone (the old net) kept them apart
    ranked = newest_first([old, other, new], vectors)
    assert [h.id for h in ranked] == ["b", "c", "a"]
    assert ranked[2].metadata["was_until"] == new.metadata["valid_from"]
    assert "was_until" not in ranked[1].metadata


def test_a_value_added_beside_the_old_one_is_not_the_same_thing() -> None:
    texts = ["I'm learning Polish.", "My brother is learning Polish too.", "I now study Latvian as well."]
    same = same_pairs(texts, encode(texts))
    assert not same[0, 1] and not same[0, 2] and not same[1, 2]


def test_a_new_value_of_the_same_kind_links_a_date_to_a_date_only() -> None:
    assert value_kind("My piano exam is on June 20.") == "date"
    assert value_kind("My streak is 120 days.") == "number"
    assert new_value_of_kind("The piano exam was moved to July 4.", "My piano exam is on June 20.")
    assert not new_value_of_kind("Da Nang is hot in May.", "I live in Da Nang.")  # a date beside a home
    texts = ["My Duolingo streak is 120 days.", "The streak just hit 151 days!"]
    assert same_pairs(texts, encode(texts))[0, 1]


def test_the_direction_nearest_the_difference_wins() -> None:
    cut = shift("After the rent went up I reduced the tutoring budget by 100 dollars.")
    assert cut is not None and cut.amount == -100.0  # "up" is the rent's, "reduced" the budget's
    raised = shift("The gym cut its prices, so my parents raised my allowance by 30 dollars.")
    assert raised is not None and raised.amount == 30.0


def test_a_compound_statement_tells_each_part_its_clauses_tell() -> None:
    texts = [
        "I'm learning German for my job.",
        "I rent a room in Graz.",
        "We're moving to Porto in the autumn, so Portuguese classes fill my evenings.",
    ]
    vectors = encode(texts)
    assert parts(vectors, texts)[2] >= {"home", "language"}
    same = same_pairs(texts, vectors)
    assert same[0, 2] and same[1, 2]  # a new language and a new home, in one sentence
    assert not same[0, 1]


def test_a_part_told_in_one_clause_of_a_longer_sentence_is_read() -> None:
    assert about("I live in Da Nang and study SQL online in the evenings.") == "home"  # whole: other 0.57


def test_a_fact_in_a_rule_slot_is_sure_of_its_part() -> None:
    texts = [
        "I'm a second-year history student in Bristol.",  # the study slot; by meaning alone unsure
        "The registrar signed my transfer, so my degree is in philosophy from this term.",
    ]
    vectors = encode(texts)
    assert told_parts(texts, vectors)[0] == {"study"}
    assert same_pairs(texts, vectors)[0, 1]


def test_a_new_instrument_that_arrived_is_a_new_device_not_someone_elses_or_a_second_one() -> None:
    old = "I practise on a battered upright piano in the church hall."
    texts = [
        old,
        "A Kawai digital piano arrived on Tuesday, and my daily practice happens on it now.",
        "My cousin bought a gaming laptop with a huge screen.",
        "I also read PDFs on a small tablet in bed.",
    ]
    same = same_pairs(texts, encode(texts))
    assert same[0, 1]  # before the instrument exemplars: read as other, cosine 0.51 (below VALUE_MIN)
    assert not same[0, 2] and not same[0, 3] and not same[1, 2] and not same[1, 3]
