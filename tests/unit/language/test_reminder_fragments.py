"""A verbless fragment that names the topic turns to it; a thing in a told event does not.

Each case failed on the code before (heldout7, 2026-11-29: a fragment whose first topic word the
parse read as the subject of the second, "tables" as a verb, was another's clause and did not
fire; "a mole digging up my dad's lawn" fired a chemistry reminder set for moles and used it up).
The sentences are not heldout7's.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminder_turns import turns_to
from agent.language.reminders import parse_reminder
from agent.memory.reminder_rules import trigger_matches

NOW = datetime(2026, 4, 6, 18, 0, tzinfo=UTC)

# the parse reads the first topic word as the subject of the second ("Test" does "doubles")
FRAGMENTS = [
    ("Loop invariants next, please!", ["loop", "invariants"]),
    ("Test doubles today please!", ["test", "doubles"]),
]

# a thing of the topic's word taking part in an event told: the subject or object of a past
# verb, or the doer of a verb on another's thing
TOLD = [
    ("A branch fell on my neighbour's car last night.", ["branches"]),
    ("The threads on my jumper came loose.", ["threads"]),
    ("I broke two tables moving house.", ["tables"]),
    ("There's a mouse chewing through my flatmate's cables.", ["mouse"]),
    ("A wave knocked my brother off his board.", ["waves"]),
    ("Some roots cracked our neighbour's driveway.", ["roots"]),
    ("A python escaped from the zoo near my house yesterday.", ["python"]),
    ("There's a fox raiding my neighbour's bins every night.", ["fox"]),
    ("I dropped the forks at dinner.", ["forks"]),
    ("Our old pipes rattled all night.", ["pipes"]),
]

# the same words turned to now: proposed, asked about, worked on
STILL_TURNING = [
    ("Can we do branches in git today?", ["branches"]),
    ("How do threads share memory?", ["threads"]),
    ("Let's do pivot tables now.", ["tables"]),
    ("I broke my build, can we look at roots of the dependency tree?", ["roots"]),
    ("Waves today: what sets the speed of a wave on a string?", ["waves"]),
]


@pytest.mark.parametrize(("sentence", "topic"), FRAGMENTS)
def test_a_fragment_read_as_a_clause_still_turns_to_its_topic(sentence: str, topic: list[str]) -> None:
    assert turns_to(sentence, topic) is True


@pytest.mark.parametrize(("sentence", "topic"), TOLD)
def test_a_thing_in_a_told_event_is_a_passing_mention(sentence: str, topic: list[str]) -> None:
    assert turns_to(sentence, topic) is False


@pytest.mark.parametrize(("sentence", "topic"), STILL_TURNING)
def test_the_same_words_turned_to_now_still_turn(sentence: str, topic: list[str]) -> None:
    assert turns_to(sentence, topic) is True


def test_the_reminder_waits_through_a_told_event() -> None:
    reminder = parse_reminder("If branches come up, remind me to ask about rebasing.", now=NOW)
    assert reminder is not None and reminder["keywords"] == ["branches"]
    assert not trigger_matches(reminder, "Ugh, a branch fell on my neighbour's car last night.", None, NOW)
    assert trigger_matches(reminder, "Can we do branches in git today?", None, NOW)


def test_a_fragment_fires_the_reminder_for_its_topic() -> None:
    reminder = parse_reminder("When we get to loop invariants, remind me to ask about termination.", now=NOW)
    assert reminder is not None and reminder["keywords"] == ["loop invariants"]
    assert trigger_matches(reminder, "Loop invariants next, please! Is 'i < n' one?", None, NOW)
