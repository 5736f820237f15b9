"""A running total or a date updated by an increment without "by", twice in a row (issue 39, L6)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from agent.language.differences import resolve_change
from agent.language.facts import is_fact_statement
from agent.language.shifts import shift, value_kind
from agent.memory.fact_changes import changed_fact

NOW = datetime(2026, 5, 2, 18, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=14)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        (
            "My Polish flashcard deck has 150 words so far.",
            "Another 60 Polish words went into the deck.",
            "210",
        ),
        ("I've solved 40 LeetCode problems.", "Twelve more LeetCode problems solved this fortnight.", "52"),
        (
            "My CLI tool, tidy-csv, has 35 GitHub stars.",
            "tidy-csv got 18 new stars after the Reddit post.",
            "53",
        ),
        (
            "The study is clean at 84 bpm.",
            "My teacher told me to add 8 more bpm to the study, and I did.",
            "92",
        ),
        (
            "Our robotics club has 800 euros for parts.",
            "The school cut 250 euros from the robotics budget.",
            "550",
        ),
        (
            "The lab gives me 400 dollars of GPU credit per term.",
            "The GPU credit per term is cut in half.",
            "200",
        ),
        ("I run 25 kilometres a week and weigh 82 kilos.", "I lost 4 kilos since I started running.", "78"),
        ("My course budget is 150 euros.", "The course budget went up by 20% this year.", "180"),
    ],
)
def test_an_increment_without_by_resolves_to_the_new_total(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # the old fact was changed before: the change applies to its "(now …)" value, not its first number
        (
            "The school cut 250 euros from the robotics budget. (now 550)",
            "A sponsor added 150 euros to it!",
            "700",
        ),
        ("Another 60 Polish words went into the deck. (now 210)", "Forty more Polish words added.", "250"),
        (
            "The midterm got postponed by a week. (now May 11)",
            "The midterm slipped another three days.",
            "May 14",
        ),
    ],
)
def test_a_second_change_starts_from_the_resolved_value(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


def test_a_date_moved_by_more_days() -> None:
    old = "The professor put the discrete maths midterm on May 11 because of the elections."
    new = "Another delay: the discrete maths midterm slips by three more days."
    assert shift(new) is not None and shift(new).time == timedelta(days=3)  # type: ignore[union-attr]
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == "May 14"
    assert shift("I need three more days of practice.") is None  # no direction: never a guess


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My Spanish deck has 320 cards.", "I added 10 new tags to my deck."),  # another unit
        ("My exams are on May 3 and May 9.", "They cut it by 2."),  # no number, two dates
        ("My Spanish deck has 320 cards.", "I didn't add any new cards this week."),
        ("My Spanish deck has 320 cards.", "I want to add 50 more cards."),
    ],
)
def test_no_amount_or_no_unit_of_the_same_thing_no_value(old: str, new: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) is None


def test_an_increment_in_words_is_a_fact_and_a_month_inside_a_word_is_no_date() -> None:
    assert is_fact_statement("Twelve more LeetCode problems solved this fortnight.")
    assert is_fact_statement("Another delay: the discrete maths midterm slips by three more days.")
    assert value_kind("Another question: what is a monad") is None
    assert value_kind("My lesson is on Tuesday.") == "date"


def _row(text: str, score: float, fact_id: str) -> dict:
    return {"id": fact_id, "text": text, "score": score, "valid_from": EARLIER.isoformat()}


def test_the_store_changes_the_closest_fact_it_resolves_against() -> None:
    payload = {
        "slotted": False,
        "predicate": "fact:abc",
        "text": "A local sponsor added 150 euros to the robotics parts budget!",
        "valid_from": NOW.isoformat(),
    }
    rows = [
        _row("The school cut 250 euros from the robotics parts budget. (now 550)", 0.71, "f1"),
        _row("Our robot has 4 motors.", 0.40, "f2"),
    ]
    changed = changed_fact(payload, rows)
    assert changed is not None and changed[0]["id"] == "f1" and changed[1] == "700"
    far = [_row("I weigh 82 kilos.", 0.43, "f3")]  # "my dog gained 2 kilos" is not about the learner
    assert changed_fact({**payload, "text": "My dog gained 2 kilos over the winter."}, far) is None


def test_reading_dates_does_not_import_dateparser_until_needed() -> None:
    code = "import sys, agent.language.facts, agent.language.when; print('dateparser' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_of_two_open_values_of_one_thing_the_newer_is_changed() -> None:
    payload = {
        "slotted": False,
        "predicate": "fact:abc",
        "text": "Another delay: the discrete maths midterm slips by three more days.",
        "valid_from": NOW.isoformat(),
    }
    older = _row("My discrete maths midterm is on May 4.", 0.64, "f1")
    newer = {
        **_row(
            "The professor put the discrete maths midterm on May 11 because of the elections.", 0.58, "f2"
        ),
        "valid_from": (EARLIER + timedelta(days=7)).isoformat(),
    }
    changed = changed_fact(payload, [older, newer])
    assert changed is not None and changed[0]["id"] == "f2" and changed[1] == "May 14"
    czech = _row("My Czech deck has 90 words.", 0.84, "c1")
    polish = {**_row("Polish deck count: 180.", 0.56, "p1"), "valid_from": NOW.isoformat()}
    added = changed_fact({**payload, "text": "Added 20 new words to the Czech deck."}, [czech, polish])
    assert added is not None and added[0]["id"] == "c1" and added[1] == "110"  # not the newer Polish deck


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        (
            "My blitz rating is 1210, and I want to get past 1300 by summer.",
            "Gained 25 points yesterday.",
            "1235",
        ),
        (
            "Coverage is 62%, and my lead wants it above 80.",
            "Coverage went up eleven points this week.",
            "73%",
        ),
        ("My travel grant is €1,200 for the year.", "The department cut the travel grant by €200.", "€1,000"),
        (
            "My proposal is due on April 3.",
            "My supervisor pushed the proposal deadline back a week.",
            "April 10",
        ),
        ("My proposal is due on April 3.", "The proposal got another five days' extension.", "April 8"),
        ("My proposal is due on April 3.", "I got a two weeks' extension on the proposal.", "April 17"),
        ("My driving test is on June 18.", "The school moved all tests back a fortnight.", "July 2"),
    ],
)
def test_a_change_applies_to_the_stated_value_with_its_currency_or_percent(
    old: str, new: str, value: str
) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


def test_an_increment_that_names_nothing_changes_the_newest_total_it_can() -> None:
    payload = {"slotted": False, "predicate": "fact:abc", "valid_from": NOW.isoformat()}
    push_ups = _row("I've done 40 push-up sets this month.", 0.25, "p1")
    posts = {
        **_row("I've written 12 blog posts about Rust so far.", 0.1, "b1"),
        "valid_from": NOW.isoformat(),
    }
    changed = changed_fact(
        {**payload, "text": "Knocked out two more today, one on lifetimes."}, [push_ups, posts]
    )
    assert changed is not None and changed[0]["id"] == "b1" and changed[1] == "14"
    far = [_row("My Kanji count is at 350.", 0.56, "k1")]  # someone else's kanji
    assert changed_fact({**payload, "text": "Mei's sister learned 40 new kanji."}, far) is None
    gym = [_row("Our hackathon team budget is 1200 dollars.", 0.4, "h1")]
    assert changed_fact({**payload, "text": "The gym raised its fee by 10 dollars."}, gym) is None
    final = [_row("My statistics final is on June 12.", 0.15, "s1")]
    assert (
        changed_fact({**payload, "text": "The football final was pushed back by two weeks."}, final) is None
    )


def test_a_decimal_is_a_number_not_a_date() -> None:
    # "90.1%" matched the old digit-date pattern, so two accuracies were not values of one kind.
    from agent.language.shifts import value_kind

    for number in ("My best accuracy is 0.77.", "Validation accuracy is 90.1% now.", "Python 3.12 is out."):
        assert value_kind(number) == "number", number
    for date in ("The exam is on 3/14.", "Due 2026-05-09.", "Due 14.03.2026.", "The exam is on May 9."):
        assert value_kind(date) == "date", date


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # the learner's format: thousands separator, currency, percent, decimals
        (
            "I'm saving up for the bootcamp: €1,800 put aside so far, and the fee is €7,500.",
            "Added €450 from a freelance gig last week.",
            "€2,250",
        ),
        (
            "I've written 14,200 words of my thesis, and the target is 20,000.",
            "Wrote 1,350 words of the discussion.",
            "15,550",
        ),
        ("I have $850 in my textbook fund.", "The school added $200 to my textbook fund.", "$1,050"),
        ("I've logged 42.5 hours on the Rust book so far.", "Put in 2.5 more hours on the Rust book.", "45"),
        # a pronoun or no noun
        (
            "I know 12 chords on the guitar right now.",
            "Learned three new ones this week: F, Bm and B7.",
            "15",
        ),
        (
            "I have $1,200 left in my conference travel grant.",
            "The flight to Lisbon took $380 of it.",
            "$820",
        ),
        ("My savings for the course are €2,400.", "Had to spend €350 of it on a new laptop.", "€2,050"),
        # a percent of progress adds points; "by N%" scales
        ("I'm 40% through the Coursera specialization.", "Did another 15% over the long weekend.", "55%"),
        ("I'm 25% through the fast.ai course.", "Got through 20% more of it this week.", "45%"),
        ("My daily Anki review limit is 200 cards.", "I'm reducing the review limit by 25%.", "150"),
        # a part of a whole: the part moves
        ("I've done 8 of the 20 LeetCode mediums on my list.", "Knocked out 5 more last night.", "13"),
        ("I've watched 12 of the 40 lectures in the course.", "Watched 4 more lectures on the train.", "16"),
        # a date moved inside a longer sentence, by someone else or an event
        (
            "The physics lab report is due April 28.",
            "The TA gave me another four days' extension because I was sick.",
            "May 2",
        ),
        (
            "My grade 5 piano exam is on 10 June.",
            "The centre postponed all grade exams by a fortnight.",
            "24 June",
        ),
        (
            "The chem final is on December 18.",
            "They brought the final forward three days, ugh.",
            "December 15",
        ),
        ("My dissertation is due on April 30.", "My supervisor granted me a two-week extension.", "May 14"),
        ("My exam is on March 14.", "The centre moved all March exams back by a week.", "March 21"),
    ],
)
def test_the_classes_heldout5_missed_resolve_in_the_learners_format(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I have $620 in my laptop fund.", "I spent $30 on a pizza with friends."),  # not from the fund
        ("I've played 300 games on Lichess.", "I analysed 3 games with another member."),  # another verb
        ("I know 140 kanji.", "Forgot 10 kanji over the holidays."),  # a loss is no work done
        ("My Anki deck has 900 cards.", "Reviewed 200 cards this morning."),  # a state: no verb to match
        ("I've logged 46 hours of practice.", "Slept 9 hours last night, finally."),
        ("My rapid rating is 1430.", "I'm studying endgames to get past 1500."),
        ("Gained 45 points over the weekend.", "Lost 20 in a bad session last night."),  # never resolved
        ("I'm 25% through the course.", "I might raise the limit by 25% after the exams."),
        (
            "My thesis defence is on September 9.",
            "If they postpone the defence by a week, I'll have more time.",
        ),
        ("My calculus exam is on November 20.", "The examiners might push the exam back a week."),
        ("My budget is 300 dollars.", "Did another 10% of the course."),  # points of a percent only
        ("My flatmate has saved €5,000 for her car.", "Put another €600 aside after selling my bike."),
        ("My screen-time limit is 180 minutes a day.", "My brother lowered his limit by 50%."),
    ],
)
def test_no_value_for_plans_losses_other_verbs_or_others_totals(old: str, new: str) -> None:
    changed = changed_fact(
        {"slotted": False, "predicate": "fact:abc", "text": new, "valid_from": NOW.isoformat()},
        [_row(old, 0.2, "f1")],
    )
    assert changed is None or changed[1] is None


def test_a_loose_fit_to_two_facts_told_together_changes_neither() -> None:
    payload = {"slotted": False, "predicate": "fact:abc", "valid_from": NOW.isoformat()}
    due = _row("My dissertation is due on April 30.", 0.19, "d1")
    defence = _row("My thesis defence is on September 9.", 0.22, "t1")
    text = "My supervisor granted me a two-week extension, thank god."
    assert changed_fact({**payload, "text": text}, [defence, due]) is None


def test_an_ellipsis_continues_a_count_not_a_bound() -> None:
    """A count with no unit adds to the learner's count, never to a limit or a price told beside it."""
    from agent.language.differences import only_bounds

    assert only_bounds("Typed 310 more tonight.", "The essay limit is 4,000 words.")
    assert only_bounds("Another 45 done.", "The course costs 900 dollars.")
    assert not only_bounds("Typed 310 more tonight.", "My essay is at 2,150 words.")
    assert not only_bounds("They raised the limit by 500.", "The essay limit is 4,000 words.")


def test_work_done_adds_to_a_total_marked_as_running_whatever_its_verb() -> None:
    """A total marked "so far" or "in total" is running: work done of its counted word adds to it."""
    old_at = datetime(2026, 3, 1, tzinfo=UTC)
    new_at = datetime(2026, 3, 8, tzinfo=UTC)
    assert (
        resolve_change(
            "Jogged 4.5 km by the river.",
            "I've logged 37 km so far this month.",
            old_at=old_at,
            new_at=new_at,
        )
        == "41.5"
    )
    assert (
        resolve_change(
            "Jogged 4.5 km by the river.", "My bike has 37 km on it.", old_at=old_at, new_at=new_at
        )
        is None
    )


def test_the_running_total_among_several_numbers_takes_the_change() -> None:
    """A count marked "so far" is which of several numbers a bare increment continues."""
    old_at = datetime(2026, 4, 1, tzinfo=UTC)
    new_at = datetime(2026, 4, 9, tzinfo=UTC)
    old = "I've cleared 64 katas so far, the hardest took 2 weekends"
    assert resolve_change("Cleared 6 more on the plane.", old, old_at=old_at, new_at=new_at) == "70"


def test_a_tally_of_money_spent_from_a_pot_takes_it_away() -> None:
    """Spending "another" amount tallies spending from a pot, never money added; a purchase alone is none."""
    from agent.language.quantities import amount_change

    assert amount_change("Spent another $28 on API calls.").delta == -28
    assert amount_change("I spent $14 on a sandwich.").stock == "spent"  # a draw on money left only


def test_an_amount_still_to_go_is_read_within_its_clause() -> None:
    """An "until" in a later clause leaves the amount done ("9 more tonight, at the gym until it closed")."""
    assert shift("Did 9 more tonight, at the gym until it closed").amount == 9
    assert shift("9 more sessions until the exam") is None


def test_a_span_is_no_count_and_a_held_amount_stays_above_zero() -> None:
    """A span tells when: a later amount applies to the computed value; nothing held goes below zero."""
    old_at = datetime(2026, 5, 1, tzinfo=UTC)
    new_at = datetime(2026, 5, 20, tzinfo=UTC)
    old = "A stuck job ate a tenth of my compute credits over 2 weeks (now $630)"
    assert resolve_change("Spent another $44 on a bigger VM.", old, old_at=old_at, new_at=new_at) == "$586"
    assert (
        resolve_change(
            "Spent another $44 on a bigger VM.", "The VPN costs $9 a month.", old_at=old_at, new_at=new_at
        )
        is None
    )


def test_savings_got_and_set_aside_are_a_total_a_gift_adds_to() -> None:
    """'got N set aside' is savings held, not a change never resolved: money given for the fund adds to it."""
    old = "Saving up for a bike, got 500 pesos put aside"
    new = "My gran gave me 100 pesos for the bike fund."
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == "600"


@pytest.mark.parametrize(
    ("new", "value"),
    [
        ("Got through 8 of them at the library.", "22 left"),
        ("I worked through 5 tonight", "25 left"),
        ("3 more done", "27 left"),
        ("Solved 10 problems", "20 left"),
    ],
)
def test_a_size_with_none_done_yet_is_what_is_left(new: str, value: str) -> None:
    """'has 30 problems and I haven't started': work done after it leaves the rest, never adds to the size."""
    old = "The physics sheet has 30 problems and I haven't started it"
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    "old",
    ["I've saved 300 pesos for the TOEIC 2 prep class", "I have 300 pesos put aside for the DELF 1 course"],
)
def test_a_tests_level_in_a_funds_name_is_no_second_value(old: str) -> None:
    """'the TOEIC 2 prep class' names the fund: a change by the fund's role applies to its one amount."""
    assert resolve_change("My new job doubled my course savings", old, old_at=EARLIER, new_at=NOW) == "600"
    assert (
        resolve_change(
            "I have CHF 900 for the trip. Doubled my savings!",
            "I have CHF 900 for the trip",
            old_at=EARLIER,
            new_at=NOW,
        )
        == "1,800"
    )
