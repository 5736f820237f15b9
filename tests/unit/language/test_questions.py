"""One ``is_question`` for every reader of learner text (``agent.language.questions``)."""

from __future__ import annotations

import json
from pathlib import Path

from agent.language.questions import is_question
from agent.models import offline_policy, offline_reading
from agent.notes import offline_prose

SET = Path(__file__).resolve().parents[3] / "bench" / "language" / "questions.json"


def test_the_notes_and_the_offline_policy_ask_the_same_rule() -> None:
    readers = (offline_prose.is_question, offline_reading.is_question, offline_policy.is_question)
    assert all(reader is is_question for reader in readers)


def test_questions_without_a_question_mark_and_requests_that_open_with_dont() -> None:
    # The policy's old openers missed modals and "were"/"has"; the notes' old ones missed
    # "am" and took "Don't let me forget ..." (a reminder request) for a question.
    for asked in ("should I learn R or Python first", "were my answers right", "am I supposed to normalise"):
        assert is_question(asked), asked
    assert is_question("isn't a set unordered") and is_question("Why does my join duplicate rows?  ")
    for told in ("Don't let me forget to ask about heapq when we reach heaps.", "A left join keeps rows."):
        assert not is_question(told), told


def test_the_labelled_set_reads_as_measured() -> None:
    items = json.loads(SET.read_text())["sentences"]
    right = sum(is_question(item["text"]) == item["question"] for item in items)
    assert len(items) >= 40 and {item["kind"] for item in items} >= {"bare", "indirect", "imperative"}
    assert right >= 43  # the notes' old rule read 36 of the 56, the policy's 35, any opener 39


def test_an_auxiliary_without_a_subject_after_it_starts_a_statement() -> None:
    # "Did eleven more ..." was read as a question, so a running total was never stored.
    for told in (
        "Did eleven more over the weekend, including two mediums!",
        "Had to take $70 out of it for a new keyboard, annoying.",
        "Was stuck on recursion all evening.",
        "Might be easier to use a dict here.",
        "Did 30 minutes of listening practice today.",
    ):
        assert not is_question(told), told
    for asked in ("Did you get my message", "Is there a faster sort", "does pandas keep the index"):
        assert is_question(asked), asked
