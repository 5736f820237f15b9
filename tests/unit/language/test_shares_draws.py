"""A count is no change of a percentage; joint work adds the learner's share; a part taken or gone."""

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.differences import resolve_change

OLD_AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NEW_AT = OLD_AT + timedelta(days=7)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("About 15% of my flashcards are overdue.", "Reviewed 40 new cards tonight.", None),
        ("I'm 30% through the calculus workbook.", "Did 12 more integrals after dinner.", None),
        ("My completion rate is 60%.", "It went up 5 points this week.", "65%"),
        ("I've logged 40 hours of clinic shadowing so far.", "My friend and I did 6 hours together.", None),
        (
            "I've logged 40 hours of clinic shadowing so far.",
            "My friend and I did 6 hours together on Monday, we each logged 3.",
            "43",
        ),
        ("I've saved 800 euros for the exchange.", "Had to take a quarter of the savings for rent.", "600"),
        (
            "I have 300 dollars set aside for the conference.",
            "The poster printing swallowed 60 of it.",
            "240",
        ),
        ("I've got 150 pounds put by for books.", "Used 40 of it on the anatomy atlas.", "110"),
        ("I've spent 20 hours on the violin this term.", "Four more lessons, 45 minutes each.", "23"),
        ("I've meditated 300 minutes this month.", "Another 2 hours at the weekend retreat.", "420"),
        ("I've put 12 hours into the guitar course so far.", "Half an hour more of scales tonight.", "12.5"),
        (
            "My deck has 400 cards learned.",
            "Spotted 12 repeats and deleted them, so take those off the total.",
            "388",
        ),
        ("Two more rehearsals this week, 2 hours each (now 9)", "Another 20 minutes on it tonight.", None),
        (
            "I've logged 40 hours of clinic shadowing so far.",
            "My cousin and I put in 5 more hours together.",
            None,
        ),
        ("I can conjugate 120 verbs.", "After the summer about 25% of my verbs are just gone.", "90"),
    ],
)
def test_shares_and_parts(old: str, new: str, value: str | None) -> None:
    """My own phrasings (not the scenarios'): the value ``new`` gives ``old``, or None (left alone)."""
    assert resolve_change(new, old, old_at=OLD_AT, new_at=NEW_AT) == value


@pytest.mark.parametrize(
    "new",
    [
        "Happy new year! my aunt doubled my bike fund, she's so generous",
        "my grandpa added 40 to my camera savings, he's the best",
    ],
)
def test_a_pronouns_is_no_owner(new: str) -> None:
    """A pronoun's "is" ("she's") is no owner; a greeting before the change is no subject of it."""
    from agent.language.change_owner import names_another_owner

    assert not names_another_owner(new, "I've got 200 euros saved for a bike and a camera so far")


def test_a_particle_after_the_verb_of_work() -> None:
    """A verb's particle ("churned out 9 proofs") stands between the verb of work and the amount."""
    from agent.language.shifts import shift

    change = shift("Churned out 9 proofs before lunch.")
    assert change is not None and change.done == "churn" and change.amount == 9
