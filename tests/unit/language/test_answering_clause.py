"""A statement that tells several things is read by the clause that answers the question (issue 39, L5).

An older introduction ("I'm …, a … from …, renting a room in …, learning …") answers a question about
the learner's home by one clause only; its other clauses (a language, a level) must not set it apart
from a later home, nor make the kind asked a code. Phrasings of our own, not from a scenario set.
"""

from __future__ import annotations

from agent.language.answer_kinds import calls_old
from agent.language.encoder import encode
from agent.language.question_net import (
    another_in_unit,
    answer_groups,
    answering_clause,
    answering_parts,
    unit_values,
)
from agent.language.versions import as_learner
from agent.memory.fact_order import newest_first
from tests.unit.language.open_facts import open_fact

T1, T2 = "2026-01-10T00:00:00+00:00", "2026-03-02T00:00:00+00:00"
INTRO = (
    "Hi, Ana here, 29, a nurse from Braga, currently renting a room in Coimbra "
    "and learning German for a job offer."
)
LATER = "Unpacking the last boxes in our new place in Porto, the kitchen is tiny but bright."


def test_the_clause_closest_to_the_question_is_read() -> None:
    [asked] = encode([as_learner("Where does the learner live?")])
    clause, _ = answering_clause(asked, INTRO)
    assert "Coimbra" in clause and "German" not in clause
    # a one-clause statement is read whole
    assert answering_clause(asked, "I live in Faro.")[0] == "I live in Faro."


def test_an_introduction_and_a_later_home_are_one_thing_when_asked_where_the_learner_lives() -> None:
    texts = [INTRO, LATER]
    vectors = encode(texts)
    [asked] = encode([as_learner("Where does the learner live?")])
    assert answer_groups(vectors @ asked, texts, vectors=vectors, question=asked) == [[0, 1]]
    hits = [open_fact("intro", INTRO, T1), open_fact("later", LATER, T2)]
    ranked = newest_first(hits, vectors, asked)
    assert [h.id for h in ranked] == ["later", "intro"]


def test_answering_parts_reads_one_clause_per_statement() -> None:
    texts = [INTRO, "I'm learning German for a job offer and my level is A2."]
    [asked] = encode([as_learner("Which language is the learner learning?")])
    told = answering_parts(asked, encode(texts), texts)
    assert len(told) == 2 and all(isinstance(t, frozenset) for t in told)


def test_another_persons_value_is_still_no_newer_version() -> None:
    older = "Hi, I'm Ana, a nurse from Braga, renting a room in Coimbra and learning German."
    newer = "My sister lives in Lisbon and visits on Sundays."
    hits = [open_fact("mine", older, T1), open_fact("sister", newer, T2)]
    vectors = encode([older, newer])
    [asked] = encode([as_learner("Where does the learner live?")])
    ranked = newest_first(hits, vectors, asked)
    assert ranked[0].id == "mine" and "was_until" not in ranked[0].metadata


def test_a_value_in_the_best_answers_unit_is_another_version_however_far_its_words() -> None:
    # The newer names neither "allowance" nor anything the question asks: only its unit ties it.
    older = "My parents agreed to send me an allowance of €400 a month while I study."
    newer = "Rent went up and the family chat agreed: €550 from this month on."
    texts = [older, newer]
    vectors = encode(texts)
    [asked] = encode([as_learner("What is the learner's monthly allowance?")])
    assert answer_groups(vectors @ asked, texts, vectors=vectors, question=asked, margin=0.0) == [[0, 1]]


def test_units_and_differences() -> None:
    assert unit_values("A conference budget of $2,000 and room B214.") == {"$": {"2,000"}, "b": {"214"}}
    units = unit_values("My stipend is £1,300 a month.")
    assert another_in_unit("It's £1,450 a month from this term.", units)
    assert not another_in_unit("It's still £1,300 a month.", units)  # the same value
    assert not another_in_unit("They cut it by £200.", units)  # a difference: the arithmetic's
    assert not another_in_unit("The course costs 1,450 euros.", units)  # another unit


def test_a_thing_the_learner_calls_old() -> None:
    assert calls_old("My cousin moved into my old room in Leeds.", "leeds")
    assert calls_old("I sold my old Kindle to a colleague.", "kindle")
    assert calls_old("My former office at Bosch is a gym now.", "bosch")
    assert not calls_old("My old school friend still lives in Leeds.", "leeds")  # a person is old
    assert not calls_old("I visited Leeds with my old camera.", "leeds")
    assert not calls_old("My office at Bosch is a gym now.", "bosch")


def test_a_later_message_that_calls_the_old_value_old_puts_its_new_value_first() -> None:
    older = "Hi, Oskar here, an accountant at Deloitte in Oslo, and I learn Python on weekends."
    aside = "My colleague Ingrid got my old desk at Deloitte, lucky her."
    newer = "The onboarding at Equinor is endless, three days of slides so far."
    hits = [open_fact("old", older, T1), open_fact("aside", aside, T2), open_fact("new", newer, T2)]
    vectors = encode([older, aside, newer])
    question = "Where does the learner work?"
    [asked] = encode([as_learner(question)])
    ranked = newest_first(hits, vectors, asked, question)
    assert ranked[0].id == "new"
    assert next(h for h in ranked if h.id == "old").metadata["was_until"] == T2
    # without the later mention of the old value, the introduction stays first
    ranked = newest_first([hits[0], hits[2]], vectors[[0, 2]], asked, question)
    assert ranked[0].id == "old"
