"""A topic's word as the doer of something happening now to the learner's things is its other sense.

My own phrasings, none from a scenario set. "Some moles are digging up our lawn" does not turn to
a lesson on moles (``reminder_turns._told_event``: the subject of a present progressive verb whose
object is the learner's thing); a turn that proposes or asks about the topic still does. Two
complaints about the topic that the rule also silences are kept as known misses (xfail): the parse
cannot tell "my code" from "my cables".
"""

from __future__ import annotations

import pytest

from agent.language.reminder_turns import turns_to


@pytest.mark.parametrize(
    ("topic", "sentence"),
    [
        ("moles", "Some moles are digging up our lawn again, sorry I'm distracted"),
        ("mice", "The mice are chewing through my laptop cables, I need a cat"),
        ("bugs", "Bugs are eating my tomato plants and I don't know what to spray"),
        ("waves", "Huge waves are soaking our beach towels right now"),
        ("springs", "The springs are poking through my old mattress"),
        ("python", "My python is squeezing my arm, he's very friendly"),
        ("ants", "Ants are marching across our kitchen floor"),
        ("roots", "The roots are cracking our patio slabs"),
        ("viruses", "Viruses are going around my office this week"),
        ("crickets", "The crickets are keeping my whole street awake"),
        ("cranes", "Two cranes are blocking my road this morning"),
        # the learner's thing one level down, under the verb's object or preposition
        ("squirrels", "Squirrels are burying nuts in my flower pots"),
        ("waves", "The waves are leaving sand all over my bag"),
    ],
)
def test_a_doer_at_work_on_the_learners_things_is_another_sense(topic: str, sentence: str) -> None:
    assert not turns_to(sentence, [topic])


@pytest.mark.parametrize(
    ("topic", "sentence"),
    [
        ("pointers", "Pointers are driving me crazy, can we go over them?"),
        ("waves", "Waves are confusing me, let's do them again"),
        ("bugs", "Let's do bugs today: why is my loop skipping items?"),
        ("loops", "My loops are eating all my memory, can we look at loops?"),
        ("springs", "Can we do springs now, Hooke's law?"),
        ("roots", "Roots today please: how do I simplify the root of 18?"),
        ("exceptions", "Exceptions are crashing my script, let's do exceptions"),
        ("threads", "Threads are blocking my main loop, how do I stop that?"),
    ],
)
def test_the_topic_proposed_or_asked_about_still_turns_to_it(topic: str, sentence: str) -> None:
    assert turns_to(sentence, [topic])


@pytest.mark.xfail(strict=True, reason="a complaint on the learner's abstract thing reads as a doer at work")
@pytest.mark.parametrize(
    ("topic", "sentence"),
    [
        ("recursion", "Recursion is eating my brain, but let's start it"),
        ("closures", "Closures are breaking my code, help"),
    ],
)
def test_known_misses(topic: str, sentence: str) -> None:
    assert turns_to(sentence, [topic])
