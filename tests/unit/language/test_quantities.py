"""Numbers in digits or words, and a change stated as an amount without "by" (issue 39, L6)."""

from __future__ import annotations

import pytest

from agent.language.numerals import current_value, numbers, without_current
from agent.language.quantities import amount_change
from agent.language.units import unit_after


def test_numbers_in_words_and_digits_but_not_in_dates() -> None:
    text = "Twelve problems, twenty-five cards, a hundred and five words, 1,200 euros, a dozen eggs"
    assert [n.value for n in numbers(text)] == [12, 25, 105, 1200, 12]
    assert [n.value for n in numbers("My exam is on May 4 at 10:30, in 2026, and I have 3 mocks.")] == [3]


@pytest.mark.parametrize(
    ("text", "delta", "unit"),
    [
        ("Another 60 Polish words went into the deck over the weekend.", 60, "Polish words"),
        ("Twelve more LeetCode problems solved this fortnight.", 12, "LeetCode problems"),
        ("tidy-csv got 18 new stars after the Reddit post.", 18, "stars"),
        ("My teacher told me to add 8 more bpm to the study, and I managed it.", 8, "bpm"),
        ("A local sponsor added 150 euros to the robotics parts budget!", 150, "euros"),
        ("The school cut 250 euros from the robotics parts budget.", -250, "euros"),
        ("The robotics budget lost another 50 euros.", -50, "euros"),
        ("Five members left, so we have 5 fewer.", -5, "members"),
        ("I typed 3 more words per minute today.", 3, "words per minute"),
    ],
)
def test_an_amount_without_by_is_a_signed_change_of_a_unit(text: str, delta: float, unit: str | None) -> None:
    change = amount_change(text)
    assert change is not None and change.delta == delta and change.unit == unit


@pytest.mark.parametrize(
    ("text", "factor"),
    [
        ("The GPU credit per term is cut in half.", 0.5),
        ("My employer halved my course budget.", 0.5),
        ("The faculty doubled my travel grant.", 2.0),
        ("The subscriber count tripled after the interview.", 3.0),
    ],
)
def test_a_ratio_is_a_factor(text: str, factor: float) -> None:
    change = amount_change(text)
    assert change is not None and change.factor == factor


@pytest.mark.parametrize(
    "text",
    [
        "I didn't add 5 more words this week.",  # negated
        "I want to add 10 more cards before the exam.",  # only planned
        "I'll need 20 more words for the review.",
        "I scored 3 more points than my friend.",  # a comparison
        "I have 12 more problems to go.",  # still to go
        "I read 3 chapters of another book.",  # "another" counts no amount
        "Another question: what is a monad?",
        "I have one more question.",  # "one more" is a pronoun as often as an amount
        "I would double my experiments if I had more GPUs.",
        "My rating went by 40.",  # "by N" without a direction
    ],
)
def test_no_change_when_negated_planned_compared_or_no_amount(text: str) -> None:
    assert amount_change(text) is None


def test_a_by_amount_takes_the_direction_it_is_given() -> None:
    change = amount_change("Rating went up by 45.", lambda at: 1)
    assert change is not None and change.delta == 45
    percent = amount_change("The budget went up by 20%.", lambda at: 1)
    assert percent is not None and percent.factor == pytest.approx(1.2)


def test_a_resolved_value_and_units() -> None:
    fact = "The school cut 250 euros from the budget. (now 550)"
    assert current_value(fact) == "550"
    assert without_current(fact) == "The school cut 250 euros from the budget."
    assert current_value("My budget is 800 euros.") is None
    text = "Puzzle rating went up by 120 after the course."
    assert unit_after(text, text.index("120") + 3) is None  # "after the course" is not what 120 counts


@pytest.mark.parametrize(
    "text",
    [
        "I added 20 more cards, so now I have 300.",
        "My rating went up by 45 to 1655.",
        "The deck is at 290 after another 40 cards.",
        "The GPU credit was doubled to 800 dollars.",
    ],
)
def test_a_change_that_gives_its_own_total_is_no_sum_to_compute(text: str) -> None:
    assert amount_change(text, lambda at: 1) is None


@pytest.mark.parametrize(
    ("text", "delta", "unit"),
    [
        ("They put €150 back after the results, so at least there's that.", 150, "euros"),
        ("Another $80 went into the laptop fund from babysitting.", 80, "dollars"),
        ("Had to take $100 out of it for the dentist.", -100, "dollars"),
        ("Put in 6 hours of flying this week.", 6, "hours"),
        ("The crash-free rate went up two points after the hotfix.", 2, "points"),
        ("The school knocked £20 off my fee.", -20, "pounds"),
    ],
)
def test_currency_symbols_and_verbs_of_change_without_by(text: str, delta: float, unit: str) -> None:
    change = amount_change(text)
    assert change is not None and change.delta == delta and change.unit == unit


def test_amounts_of_both_directions_in_one_statement_are_one_change() -> None:
    change = amount_change("Two people quit the club, though seven new players joined after the open day.")
    assert change is not None and change.delta == 5
    both = amount_change("I removed 2 books from the list but added 4 new ones.")
    assert both is not None and both.delta == 2


def test_a_total_is_written_as_the_learner_wrote_it() -> None:
    from agent.language.numerals import number_text

    assert number_text(2250, "€1,800") == "€2,250"
    assert number_text(15550, "14,200") == "15,550"
    assert number_text(1050, "$850") == "$1,050"  # too small to show a separator: the usual one
    assert number_text(1350, "1200") == "1350"  # written without one: kept so
    assert number_text(55, "40%") == "55%"
    assert number_text(45, "42.5") == "45" and number_text(5.5, "3") == "5.5"


@pytest.mark.parametrize(
    ("text", "delta", "unit"),
    [
        ("Learned three new ones this week: F, Bm and B7.", 3, None),  # "ones" names nothing
        ("Nailed another three songs, including Riptide.", 3, "songs"),  # no word past the comma
        ("Did another 15% over the long weekend.", 15, "percent"),
        ("Got through 20% more of it this week.", 20, "percent"),
        ("Three members left in January but five new ones signed up.", 2, None),  # "left" as a verb
        ("Had to spend €350 of it on a new laptop.", -350, "euros"),
        ("Wrote 1,350 words of the discussion today.", 1350, "words"),
    ],
)
def test_increments_with_a_pronoun_a_percent_or_work_done(text: str, delta: float, unit: str | None) -> None:
    change = amount_change(text)
    assert change is not None and change.delta == delta and change.unit == unit


@pytest.mark.parametrize(
    "text",
    [
        "I have 10 cards left in the deck.",  # still to go
        "Forgot 10 kanji over the holidays.",  # a loss is no work done
        "I'm reading 40 pages a day.",
    ],
)
def test_no_increment_for_spending_elsewhere_what_is_left_or_a_loss(text: str) -> None:
    assert amount_change(text) is None


def test_money_spent_on_a_thing_is_a_draw_on_money_left_only() -> None:
    """Money spent with no fund named is a draw (``stock``): it changes money left, never an increment."""
    change = amount_change("I spent $30 on a pizza with friends.")
    assert change is not None and change.delta == -30 and change.stock == "spent"


def test_a_sign_written_on_the_amount_gives_its_direction() -> None:
    """A learner's log line ("+55 words", "-1.5 km", "score: +9") is signed by its sign; a range is not."""
    from agent.language.quantities import amount_change

    assert amount_change("+55 words after lunch").delta == 55
    assert amount_change("-1.5 km, my app counted the warm-up").delta == -1.5
    assert amount_change("streak: +9").delta == 9
    ranged = amount_change("I did 3-4 sets")
    assert ranged is None or (ranged.delta or 0) >= 0  # a range, no minus sign


def test_money_withdrawn_or_pulled_from_a_fund_is_taken_away() -> None:
    """Withdrawing is out of a fund by its meaning, whatever the currency; pulling needs its source."""
    from agent.language.quantities import amount_change

    assert amount_change("Withdrew 2,500 baht for the visa run.").delta == -2500
    assert amount_change("Pulled €60 from the travel pot for a charger.").delta == -60
    assert amount_change("Spent $75 of my credits on a bigger instance.").delta == -75


@pytest.mark.parametrize(
    "text",
    ["My uncle gave me £40 for my trip savings.", "Grandpa handed me ₹500 towards the laptop."],
)
def test_money_given_to_the_learner_for_a_thing_adds(text: str) -> None:
    """Someone giving the learner money for a thing of theirs adds it to the learner's fund."""
    assert amount_change(text).delta > 0


@pytest.mark.parametrize(
    "text", ["My uncle gave my brother £40 for his trip.", "The neighbour gave me £10 to walk the dog."]
)
def test_money_given_to_another_or_as_pay_adds_nothing(text: str) -> None:
    """Money given to someone else, or paid to the learner for a task, is no gift to a fund."""
    change = amount_change(text)
    assert change is None or change.delta is None or change.delta <= 0
