"""A group's count beside the learner's own, a label that is no count, a percent beside a computed value.

Issue 39, L6. Our own phrasing, not a scenario's.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.differences import resolve_change
from agent.language.encoder import encode
from agent.language.number_owners import groups_count
from agent.language.restated import restates
from agent.language.shifts import shift
from agent.memory.fact_changes import changed_fact

NOW = datetime(2026, 10, 3, 9, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=9)


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("Our reading circle has finished about 310 novels between the eight of us.", True),
        ("We planted 75 saplings as a crew on Sunday.", True),
        ("The orchestra's tally for the season is 5,200 minutes.", True),
        ("My lab has 700 GPU hours combined.", False),  # a group holds a value of the learner's
        ("I finished 12 novels this year.", False),
        ("The school halved the coding club money.", False),
    ],
)
def test_a_count_a_group_did_together_is_the_groups(text: str, group: bool) -> None:
    assert groups_count(text) is group


def _change(facts: list[str], new: str) -> tuple[int, str | None] | None:
    vectors, query = encode(facts), encode([new])[0]
    rows = sorted(
        (
            {"id": i, "text": f, "score": float(s), "valid_from": EARLIER.isoformat()}
            for i, (f, s) in enumerate(zip(facts, vectors @ query, strict=True))
        ),
        key=lambda r: -r["score"],
    )
    p = {"slotted": False, "predicate": "fact:x", "text": new, "valid_from": NOW.isoformat()}
    found = changed_fact(p, rows)
    return None if found is None else (int(found[0]["id"]), found[1])


def test_the_learners_own_increment_never_changes_the_groups_count() -> None:
    facts = [
        "Our reading circle has finished about 310 novels between the eight of us.",
        "I've finished 27 novels this year (now 27)",
    ]
    assert _change(facts, "and I got through 4 more myself") == (1, "31")


def test_a_group_increment_never_changes_the_learners_own_count() -> None:
    facts = [
        "I've sung 35 hours with the choir this term.",
        "Our choir has sung 900 hours together this term.",
    ]
    assert _change(facts, "We sang another 40 as a choir at the festival.") == (1, "940")


def test_a_groups_count_restates_no_total_of_the_learners() -> None:
    old = "Knitted another 3 squares (now 31)"
    assert not restates("Our guild has knitted 480 squares between the twelve of us.", old)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # a label is part of a name, no count; the count told after the recount is
        ("hmm, I skipped the module 2 quizzes.", "4 more tonight", None),
        # a percent is the change's, the computed value counts what the fact counted
        ("Pruned 30% of my idiom list, all duplicates (now 280)", "Added 35 new idioms from a film.", "315"),
        # "now" after a count marks the running total among several numbers
        (
            "Studying Greek for 3 years, my app says I know 950 words now",
            "Learned 40 new ones this week.",
            "990",
        ),
    ],
)
def test_which_number_of_the_old_fact_a_change_applies_to(old: str, new: str, value: str | None) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # money that "went on" something is spent, whatever "another" tallies
        ("I have €520 of cloud budget left.", "Then another €70 went on backups.", "€450"),
        # a part of the total that went on or to something is gone
        ("My festival fund is £900.", "A third of it went on the tent.", "£600"),
        ("My festival fund is £900.", "Half the fund went to the train tickets.", "£450"),
        # a unit's short form is its first letters
        ("I've cycled 140 km this month.", "Another 30k on Saturday.", "170"),
    ],
)
def test_money_gone_on_something_and_short_units(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # a currency sign one day, its name the next: the same money (the sign's Unicode name)
        ("I've put ₴2,600 aside for the summer course.", "Added 400 hryvnias from tutoring.", "₴3,000"),
        ("My conference fund is ₸90,000.", "Spent 15,000 tenge of the fund on the poster.", "₸75,000"),
        ("I've saved 8,000 rubles for the exam.", "Took ₽1,000 out for the bus pass.", "7,000"),
    ],
)
def test_a_currency_by_its_sign_and_by_its_name_is_the_same_money(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # work done uses up what is left, and what is left stays so through the changes after it
        ("I have 180 bars of the sonata left to learn.", "Learned 24 bars this week.", "156 left"),
        ("I have 180 bars of the sonata left to learn.", "Nailed another 12 bars.", "168 left"),
        ("Learned 24 bars this week (now 156 left)", "Got through a third of what was left.", "104 left"),
        ("Learned 24 bars this week (now 156 left)", "Memorised 6 more bars.", "150 left"),
        # a verb that adds to the pile still adds
        (
            "There are 70 essays left in my marking pile.",
            "The school added 15 new essays to the pile.",
            "85 left",
        ),
        # a bare past with no subject is the learner's work done ("I read" stays unread)
        ("I have 300 pages left in the novel.", "read 55 pages on the ferry.", "245 left"),
    ],
)
def test_what_is_left_goes_down_with_work_done(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


def test_a_part_of_anothers_is_theirs() -> None:
    old = "My grant for field work is $3,000."
    assert resolve_change("She spent half of hers on a drone.", old, old_at=EARLIER, new_at=NOW) is None
    assert resolve_change("Ana doubled hers over the summer.", old, old_at=EARLIER, new_at=NOW) is None


@pytest.mark.parametrize(
    ("new", "amount"),
    [
        ("Four more rehearsals, 2.5 hours each.", 10.0),
        ("Swam three sets of 400 metres.", 1200.0),
        ("Did 12 laps twice today.", 24.0),
        ("Cycled 30 miles four times this month.", 120.0),
        ("Practised 20 minutes a day for six days.", 120.0),
    ],
)
def test_work_done_several_times_over_is_the_product(new: str, amount: float) -> None:
    change = shift(new)
    assert change is not None and change.amount == amount


def test_a_whole_beside_a_count_is_no_repetition() -> None:
    change = shift("I did 8 of the 20 katas.")
    assert change is not None and change.amount == 8.0


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # "did" and "managed" stand for the work a total was told with (a verb of work, or its participle)
        ("I'm at 140 katas completed.", "I did 5 over the long weekend.", "145"),
        ("I've translated 62 of the poems in the anthology.", "I did 4 myself last night.", "66"),
        ("I've proved 30 lemmas from the textbook so far.", "I managed 2 before dinner.", "32"),
        ("Sketched 12 of the figures for the course (now 12)", "I did 3 more on the bus.", "15"),
        ("I'm at 48 drills finished.", "I managed 7, two of them hard ones.", "55"),
        # one more of the counted word is one
        ("I've logged 22 hours of tutoring so far.", "one more hour with my tutee today", "23"),
        ("I've ridden 9 trails in the park so far.", "Did one more trail this evening.", "10"),
        # a state is no work done: no change
        ("My deck has 420 cards.", "I did 30 this morning.", None),
        ("My flat is 60 square metres.", "I managed 5 today.", None),
    ],
)
def test_a_pro_verb_adds_to_a_total_of_work(old: str, new: str, value: str | None) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


def test_one_more_is_no_turn_of_talk() -> None:
    assert shift("One more question: why is the sky blue?") is None
    assert shift("one more thing, can you check my essay") is None


def test_a_groups_count_with_the_learners_share_taken_is_the_learners_total() -> None:
    facts = [
        "I've solved 14 riddles from the puzzle book.",
        "Our puzzle club solved 60 together on Sunday, 9 of those were mine (now 23)",
    ]
    assert _change(facts, "6 more tonight by myself") == (1, "29")


@pytest.mark.parametrize(
    ("facts", "new", "changed"),
    [
        # a fund that holds an amount is the learner's ("holds" is a state, like "has")
        (["My textbook fund holds 2,000 rupees."], "Put in another ₹300 this week.", (0, "2,300")),
        # "my count", "my total" name the value's role, not another thing
        (["I've transcribed 40 letters from the archive."], "I've doubled my count since March.", (0, "80")),
        # the learner's count told before a group's tally in the same message is the learner's
        (
            ["I've rowed 18 km this week.", "The crew tally for the week is about 900 km."],
            "Another 6 km this morning, the crew tally is near 950 now.",
            (0, "24"),
        ),
    ],
)
def test_a_fund_held_a_role_named_and_a_count_before_the_group(
    facts: list[str], new: str, changed: tuple[int, str]
) -> None:
    assert _change(facts, new) == changed


def test_a_currency_named_before_other_words_is_still_that_money() -> None:
    old = "I have ₱18,000 saved for the exchange term."
    new = "Earned 2,500 pesos tutoring chemistry."
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == "₱20,500"


@pytest.mark.parametrize(
    "old",
    [
        "Hi, second year of chemistry, orgo 2 is brutal",
        "I code in Python 3 at work.",
        "Room 14 is where our study group meets.",
    ],
)
def test_a_number_after_its_noun_names_it_and_counts_nothing(old: str) -> None:
    assert resolve_change("9 more tonight at the library", old, old_at=EARLIER, new_at=NOW) is None


def test_a_currency_code_before_a_number_is_no_name() -> None:
    old = "The institute granted me SEK 9,000 for the field course."
    assert resolve_change("They chipped in another 1,500.", old, old_at=EARLIER, new_at=NOW) == "10,500"
