"""A request whose reminder words are negated declines a reminder: nothing is set.

My own phrasings, none from a scenario set. "No need to remind me about the mock on Thursday"
set a time reminder that fired on Thursday (``reminder_requests.declined``: a negation on the
request verb, or on the clause its infinitive completes; a verb that reverses what is under it,
"don't forget to remind me", makes it a request again).
"""

from __future__ import annotations

import pytest

from agent.language.reminder_requests import declined, is_reminder_request
from agent.language.reminders import parse_reminder


@pytest.mark.parametrize(
    "sentence",
    [
        "no need to remind me about the chemistry quiz on Wednesday, I wrote it on my hand",
        "You don't have to remind me about the piano lesson tomorrow, my teacher texts me",
        "Please don't remind me about the vocab test on Tuesday, it stresses me out",
        "there's no need to remind me when we get to loops, I'll ask myself",
        "I don't want you to remind me about the kanji quiz on Wednesday",
        "Do not remind me about the dentist on Tuesday, my mum will call me",
        "you needn't remind me about the physics lab on Wednesday",
        "ok, never remind me about the gym on Monday again lol",
        "No reason to remind me about the Spanish exam on Thursday, it's on my fridge",
        "you really don't need to remind me about the essay deadline on Wednesday",
    ],
)
def test_a_declined_reminder_sets_nothing(sentence: str) -> None:
    assert declined(sentence)
    assert not is_reminder_request(sentence)
    assert parse_reminder(sentence) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "Don't forget to remind me about the biology practical on Wednesday",
        "Could you not forget to remind me about the seminar tomorrow?",
        "If I don't finish it today, remind me tomorrow to finish the essay",
        "don't let me forget to bring my calculator on Monday",
        "Please remind me about the mock exam, I don't want to miss it",
        "Remind me to call the bank on Friday; they won't answer otherwise.",
        "when we do arrays please remind me to show you my sort, it won't compile",
    ],
)
def test_a_request_with_a_negation_elsewhere_still_asks(sentence: str) -> None:
    assert not declined(sentence)
    assert parse_reminder(sentence) is not None
