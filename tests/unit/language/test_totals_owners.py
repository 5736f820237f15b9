"""Running totals of session 41 (issue 39, L6), each failing on the code before it.

Whose number a change is, a change against the old value, a group's change, and a total the
learner restates after one KAG computed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.change_owner import names_another_owner
from agent.language.differences import dates_in, resolve_change
from agent.language.number_owners import change_is_anothers, number_owner
from agent.language.numerals import numbers
from agent.language.restated import restates
from agent.language.shifts import shift
from agent.memory.fact_changes import changed_fact

NOW = datetime(2026, 3, 25, 16, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=14)
STIPEND = "My study stipend is 500 euros a month; my flatmate gets 650 because she's in medicine."


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # a change stated against the old value: a percent or an amount more or less than before
        (
            "My budget for the trip is 2,000 dollars.",
            "Grandma chipped in, so the trip budget is 15% more than before.",
            "2,300",
        ),
        (
            "My budget for the trip is 2,000 dollars.",
            "The trip budget ended up 10% lower than it was.",
            "1,800",
        ),
        (
            "I'm saving 300 euros a month for the course.",
            "I'm saving 50 euros less than last month now.",
            "250",
        ),
        # by a fraction of the value
        (
            "Our budget for new sheet music is £800.",
            "The committee cut the sheet music budget by a quarter.",
            "£600",
        ),
        ("The sandbox quota is 600 requests per minute.", "The quota was raised by a third.", "800"),
        # a date moved by months or a year
        (
            "My Abitur maths oral is on 4 May.",
            "School postponed the oral by a month because of the renovation.",
            "4 June",
        ),
        (
            "My thesis defence is on March 12.",
            "The committee brought my defence forward a month.",
            "February 12",
        ),
        # the learner's change takes the learner's number, not the flatmate's
        (STIPEND, "Mine got raised by 120!", "620"),
        # a running count continued with no verb
        ("nine more today! (now 20)", "and seven tonight, my hand hurts from writing them out.", "27"),
    ],
)
def test_a_change_against_the_old_value_or_the_learners_number(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # more time given to a group the learner is in is later, whatever the reason clause says
        (
            "The essay for Prof. Haddad is due March 13, 2,500 words on the Haitian Revolution.",
            "Haddad gave the whole class an extra week on the essay because the library database was down.",
            "March 20",
        ),
        ("The essay is due March 13.", "The prof granted everyone two more days on the essay.", "March 15"),
    ],
)
def test_time_given_to_a_group_moves_the_date_later(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=datetime(2026, 3, 2, tzinfo=UTC), new_at=NOW) == value


def test_a_thousands_separated_number_is_no_part_of_a_date() -> None:
    found = dates_in(
        "The essay is due March 13, 2,500 words on the revolution.", datetime(2026, 3, 2, tzinfo=UTC)
    )
    assert [(d.month, d.day) for d in found] == [(3, 13)]


@pytest.mark.parametrize(
    ("text", "owners"),
    [
        ("My teacher learned 50 in her first week apparently.", ["another"]),
        ("Karan has done 40 which is depressing.", ["another"]),
        ("My brother lowered his limit by 200.", ["another"]),
        ("Her stipend went up by 50 too.", ["another"]),
        ("My flatmate's went up by 100.", ["another"]),
        (STIPEND, ["learner", "another"]),
        ("My deck has 900 cards.", ["learner"]),
        ("The webinar gave me 350 more points!", [""]),
        # a group's, the learner's group's, a measure: no other owner (heldout4 fell on these)
        ("HR cut everyone's training budget by €300.", [""]),
        ("Our project's test coverage is 62%.", [""]),
        ("The report got another four days' extension from the director.", [""]),
    ],
)
def test_whose_number_is_read_from_the_parse(text: str, owners: list[str]) -> None:
    assert [number_owner(text, n.start) for n in numbers(text)] == owners


def test_another_persons_change_never_changes_the_learners_total() -> None:
    assert change_is_anothers("My teacher learned 50 in her first week apparently, show-off.")
    assert names_another_owner("Her stipend went up by 50 too.", "Mine got raised by 120! (now 620)")
    assert not names_another_owner("Mine got raised by 120!", STIPEND)
    # another's total changes when the change names that person again
    assert not names_another_owner(
        "Karan has done another 20 since Monday.", "My friend Karan has solved 200 problems."
    )
    assert shift("They might push the oral back a month, nobody knows yet.") is None


def _row(text: str, score: float, days_ago: int) -> dict:
    said = (NOW - timedelta(days=days_ago)).isoformat()
    return {
        "id": text[:8],
        "text": text,
        "score": score,
        "valid_from": said,
        "subject": "l",
        "predicate": "fact:x",
    }


def test_a_total_the_learner_restates_closes_the_total_kag_computed() -> None:
    computed = "Did another 6.5 hours of piano this week, mostly the sonatina. (now 46.5)"
    correction = (
        "Correction: my teacher's logbook says I'm at 52 hours total, she counted the rehearsals too."
    )
    assert restates(correction, computed)
    assert not restates("My friend has logged 60 hours of piano.", computed)
    assert not restates("I want to reach 60 hours.", computed)
    assert not restates(correction, "I've logged 40 hours of piano practice.")  # stated, not computed
    p = {"slotted": False, "predicate": "fact:x", "text": correction, "valid_from": NOW.isoformat()}
    changed = changed_fact(p, [_row(computed, 0.37, 7)])
    assert changed is not None and changed[0]["text"] == computed and changed[1] is None
