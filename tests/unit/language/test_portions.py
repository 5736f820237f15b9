"""A part of a total told as the change: a fraction lost, or the learner's share of a group's count."""

from __future__ import annotations

import pytest

from agent.language.portions import lost_portion, own_share, repeated_work
from agent.language.quantities import amount_change


@pytest.mark.parametrize(
    ("text", "factor"),
    [
        ("The outage wiped a fifth of my streak points.", 0.8),
        ("I've forgotten about 30% of my hiragana since spring.", 0.7),
        ("She had me cut half the essay, brutal.", 0.5),
        ("The bug burned through a tenth of our GPU hours.", 0.9),
    ],
)
def test_a_part_lost_leaves_the_rest(text: str, factor: float) -> None:
    """A verb of loss over a fraction or percent of the total scales it by what is left."""
    assert lost_portion(text).factor == pytest.approx(factor)


@pytest.mark.parametrize(
    "text",
    [
        "Roughly half my flashcards are nouns.",
        "A tenth of the budget is set aside for printing.",
        "My cousin forgot half her vocabulary after the move.",
        "If this continues I'll lose a third of my points.",
    ],
)
def test_a_part_that_is_no_loss_changes_nothing(text: str) -> None:
    """A part with no verb of loss, another's part, or a loss only supposed."""
    assert lost_portion(text) is None


@pytest.mark.parametrize(
    ("text", "delta", "unit"),
    [
        ("The relay squad swam 12 km, 3.5 km of that was my part.", 3.5, "km"),
        ("We marked 70 essays as a team and I marked 22 of them.", 22, "essays"),
        ("Our flat raised £400 for the charity; my share was £90.", 90, "pounds"),
        ("The class wrote 55 haiku, eleven of those were mine.", 11, "haiku"),
    ],
)
def test_the_learners_share_of_a_group_count_adds(text: str, delta: float, unit: str) -> None:
    """The learner's share adds, in its own unit or the group count's; the group's count does not."""
    share = own_share(text)
    assert share.delta == delta and share.unit == unit
    assert amount_change(text).mine


def test_anothers_share_is_no_share_of_the_learner() -> None:
    """A friend's part of the group's count is not the learner's."""
    assert own_share("The squad swam 12 km and Ola did 5 of those.") is None


def test_a_pace_with_its_amount_adds_the_amount() -> None:
    """A factor grading a pace, told with the amount done: the amount adds; a factor alone scales."""
    assert amount_change("Doubled my pace this week: 18 katas!").delta == 18
    assert amount_change("Halved my pace, only 3 chapters.").delta == 3
    assert amount_change("My savings doubled.").factor == 2.0
    assert amount_change("The club doubled the goal to 90 km.") is None


@pytest.mark.parametrize(
    ("text", "delta", "unit"),
    [
        ("Five more tutorials since Monday, each one was 2 hours.", 10, "hours"),
        ("Biked 4 more times and every one was 12 km", 48, "km"),
        ("Two extra workshops; each of them lasted 3.5 hours.", 7, "hours"),
    ],
)
def test_the_amount_of_each_in_its_own_clause_is_multiplied(text: str, delta: float, unit: str) -> None:
    """Repeated work whose amount of each is told in a clause after the count: the product."""
    work = repeated_work(text)
    assert work.delta == delta and work.unit == unit


def test_each_one_with_no_amount_is_no_repeated_work() -> None:
    """'each one' with nothing measured after it multiplies nothing."""
    assert repeated_work("Did 3 more drills, each one was tough.") is None
