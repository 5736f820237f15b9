"""A procedure told as a sequence, without "My steps for X are:" (issue 39, L4).

The phrasings are this test's own (not heldout7's): learners of programming, maths, languages,
music, cooking and work telling what they do in order; and what is not a procedure of theirs.
"""

from __future__ import annotations

import pytest

from agent.language.procedures import is_procedure_request
from agent.language.sentences import split_sentences
from agent.language.told_procedures import read_steps, told_procedure
from agent.models.offline_policy import plan_actions

TOLD = [
    (
        "I branch off main, write the code and the tests, then I rebase on main, and after the CI "
        "passes I squash-merge it.",
        ["branch", "rebase", "merge"],
    ),
    (
        "I always start with five minutes of scales. After that I sight-read one page, then I work on "
        "the hard bars slowly and finally I play it through once at tempo.",
        ["scales", "sight-read", "hard bars", "tempo"],
    ),
    (
        "Pull the latest main, run the migrations on staging, smoke-test the login page, then tag the "
        "release and finally deploy to production.",
        ["main", "migrations", "smoke-test", "tag", "production"],
    ),
    (
        "I pick the inner function as u, compute du, rewrite the whole integral in u, integrate, and then "
        "I substitute back and check by differentiating.",
        ["inner function", "rewrite", "substitute back"],
    ),
    (
        "Every Friday I export the Zotero library, copy the thesis folder to the external drive and then "
        "push the LaTeX repo to GitLab.",
        ["Zotero", "external drive", "GitLab"],
    ),
    (
        "OK so for my Spanish homework: I translate the text first, then I underline the verbs, "
        "conjugate them in a table and finally I read it out loud.",
        ["translate", "verbs", "conjugate", "out loud"],
    ),
    (
        "1. mix the flour with water and yeast 2. knead for ten minutes 3. let it rise for an hour "
        "4. bake at 200 degrees",
        ["mix", "knead", "rise", "bake"],
    ),
]
NOT_MINE = [
    "Yesterday I opened the notebook, then I fixed the import error and finally I pushed everything.",
    "My roommate first reads the chapter, then she writes flashcards and finally she quizzes herself.",
    "Tomás always warms up with scales, then he plays arpeggios and after that he does the piece.",
    "Tomorrow I'll first review the slides, then do the problem set and after that I'll email the TA.",
    "Next week I'm going to first finish chapter 3, then start the project and finally book the exam.",
    "I live in Lyon, work at a bakery and study data science at night.",
    "Should I first learn the scales and then the chords, or the other way round?",
    "I moved to Hanoi in March, then started a new job and after that I picked up Vietnamese.",
]


def _in_order(text: str, words: list[str]) -> bool:
    at = 0
    for word in words:
        at = text.lower().find(word.lower(), at)
        if at < 0:
            return False
        at += len(word)
    return True


@pytest.mark.parametrize(("message", "words"), TOLD)
def test_a_told_sequence_is_a_procedure_with_its_steps_in_order(message, words):
    found = told_procedure(split_sentences(message))
    assert found is not None
    assert len(found.steps) >= 2
    assert _in_order(" | ".join(found.steps), words)


@pytest.mark.parametrize("message", NOT_MINE)
def test_a_story_a_plan_or_someone_elses_routine_is_not(message):
    assert told_procedure(split_sentences(message)) is None


def test_a_clause_before_a_step_runs_after_it():
    steps = [s.text for s in read_steps("I always run the linter before I push.")]
    assert steps == ["I always run the linter", "I push"]
    steps = [s.text for s in read_steps("I push after I run the linter, and then I open the PR.")]
    assert steps[0] == "I run the linter" and steps[1].startswith("I push")


def test_the_previous_message_names_the_steps_told_next():
    context = "We keep a small Rust crate at work and I'm the one who publishes new versions now."
    message = (
        "first I bump the version in Cargo.toml, then I update the changelog, run cargo test, "
        "tag it and publish with cargo."
    )
    found = told_procedure(split_sentences(message), context)
    assert found is not None and "publishes new versions" in found.name
    assert _in_order(" ".join(found.steps), ["bump", "changelog", "cargo test", "tag", "publish"])


def test_a_sentence_that_speaks_of_the_routine_introduces_it():
    message = (
        "I finally have a routine for my Sunday meal prep, so let me write it down before I forget it. "
        "I roast the vegetables first, then cook the rice and finally portion everything into boxes."
    )
    found = told_procedure(split_sentences(message))
    assert found is not None and found.start == 1
    assert "Sunday meal prep" in found.name


def test_the_offline_policy_saves_a_told_procedure_and_keeps_its_facts():
    message = "I always warm up with scales, then I play the etude and finally I record one take."
    actions = plan_actions(message, {"save_procedure", "recall_procedure", "remember_fact"})
    saved = [args for name, args in actions if name == "save_procedure"]
    assert len(saved) == 1
    assert _in_order(" ".join(saved[0]["steps"]), ["scales", "etude", "record"])


@pytest.mark.parametrize(
    "text",
    [
        "How do I usually ship a feature?",
        "what's my routine for the dumplings?",
        "What is my morning routine again?",
        "How do I normally deploy the app?",
        "what was my workflow for code reviews?",
    ],
)
def test_a_request_for_my_routine_is_a_procedure_request(text):
    assert is_procedure_request(text)


@pytest.mark.parametrize(
    "text",
    [
        "How do I compute the determinant of a 3x3 matrix?",
        "How should a beginner practise scales?",
        "Which editor do I use these days?",
    ],
)
def test_a_tutoring_question_is_not(text):
    assert not is_procedure_request(text)
