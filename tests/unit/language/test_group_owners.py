"""A group the learner is in holds or is given the learner's value; another group's is not (issue 39, L6).

Own phrasings, none from a scenario set: an organisation acting on the learner's value with no thing
named or by a pronoun (``change_owner.acting_group``), a group of the learner's as the subject of its
value (``number_owners.number_owner``), another group by "other"/"another" or a modifier the learner's
lacks, and a thing or animal with a value of its own.
"""

from __future__ import annotations

import pytest

from agent.language.change_owner import acting_group, names_another_owner, names_another_thing
from agent.language.grammar import parse
from agent.language.number_owners import number_owner
from agent.language.numerals import numbers
from agent.language.people import is_group

OURS = [
    ("The alumni association put in another 900.", "Our rowing club has 3,000 pounds for boats."),
    ("The ministry cut it by a fifth.", "We get 10,000 a year for the archive project."),
    ("The board doubled it after the audit.", "Our chess society has 400 dollars for the league fees."),
    ("The local council chipped in a further 250 euros.", "The school gave me 700 euros for the trip."),
    ("The institute trimmed them by 5 hours.", "Our group has 60 hours of telescope time this year."),
]
THEIRS = [
    ("The other choir got 400 more.", "Our choir has 1,000 dollars for robes."),
    ("The jazz band next door got another 300.", "Our band has 800 for gigs."),
    ("Another club was given 200 more.", "Our club has 900 euros for kit."),
    ("The puppy put on another 3 kilos.", "I weigh 64 kilos."),
    # a group noun that changes, acting on nothing, is the thing changed
    ("The club membership went up 5% a month.", "My grant pays 700 dollars a month."),
]


@pytest.mark.parametrize(("new", "old"), OURS)
def test_a_group_acting_on_the_learners_value_names_no_other_thing(new: str, old: str) -> None:
    assert not names_another_owner(new, old)
    assert not names_another_thing(new, old)


@pytest.mark.parametrize(("new", "old"), THEIRS)
def test_another_group_or_a_thing_of_its_own_is_another_owner_or_thing(new: str, old: str) -> None:
    assert names_another_thing(new, old)


def test_the_acting_group_is_the_subject_of_the_change_and_no_others() -> None:
    group = acting_group("The regional office added another 120.")
    assert group is not None and group.text == "office"
    assert acting_group("The other office added another 120.") is None
    assert acting_group("My sister added another 120.") is None


def test_a_group_of_the_learners_holds_the_learners_number() -> None:
    # "My company pays 2,000" is no person of the learner's with a value of their own ("My wife pays 2,000")
    text = "My company covers 2,000 a year for my training."
    assert number_owner(text, numbers(text)[0].start) != "another"
    text = "My wife covers 2,000 a year for her training."
    assert number_owner(text, numbers(text)[0].start) == "another"


def test_a_group_is_told_from_a_person_a_thing_or_a_name() -> None:
    doc = parse("The council and the ministry met my boss, the cat and Dr Ilunga.")
    heads = {t.text: is_group(t) for t in doc if t.pos_ in {"NOUN", "PROPN"}}
    assert heads["council"] and heads["ministry"]
    assert not heads["boss"] and not heads["cat"] and not heads["Ilunga"]
