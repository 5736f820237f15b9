"""A verbless value fragment completes the statement before it (``fact_parts.completed``).

Phrasings of our own (issue 39): the fragment names nothing its value belongs to, so it is read
with the sentence it completes; a greeting, a question or a sentence with its own number keeps its
fragment apart.
"""

from __future__ import annotations

import pytest

from agent.language.fact_parts import completed
from agent.language.sentences import sentence_spans

JOINED = [
    "the board moved my viva because the examiner is ill. 14 May now.",
    "my landlord is raising the rent again. 950 a month from July.",
    "the school changed our timetable for the spring. Thursdays at 4 from now on.",
    "they pushed the submission back again. 3 March.",
    "my coach upped the weekly target. 40 km.",
    "the department trimmed our lab budget. 1200 euros left.",
    "I got my essay back today. 68 out of 100.",  # "today" is no number: joined
    "the driving test got moved because of snow. 9 February instead.",
]
APART = [
    "hi! Amara, 3rd year biology at UofT",  # a greeting has no verb
    "I did 40 cards this morning. 2 hours in total.",  # the statement has its own number
    "when is the deadline? 12 June I think.",  # a question is not completed
    "I read 30 pages yesterday. 12 more today.",
    "Exam results are out. Really happy!",  # no number in the second
    "my teacher moved the test. can we revise on Friday?",
]


@pytest.mark.parametrize("text", JOINED)
def test_a_value_fragment_joins_the_statement_it_completes(text: str) -> None:
    spans = completed(sentence_spans(text), text)
    assert [s for _, s in spans] == [text], spans


@pytest.mark.parametrize("text", APART)
def test_other_sentences_stay_apart(text: str) -> None:
    spans = sentence_spans(text)
    assert completed(spans, text) == spans
