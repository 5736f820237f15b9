"""What the learner sees of a told procedure: only a method is one, named by its task (issue 39, L4).

The phrasings are this test's own (none from a scenario set); they tuned ``agent.language.procedure_names``
and the action share of ``told_procedures``. ``test_procedure_names_frozen.py`` holds a twin written at
the same time and left out of tuning.
"""

from __future__ import annotations

import pytest

from agent.models.offline_policy import plan_actions

AVAILABLE = {"save_procedure", "recall_procedure"}

NOT_PROCEDURES = [
    "Hey there! I'm Tomasz, a second-year physics student, and I'm hoping to get better at Fourier series "
    "before my finals in June.",
    "Hi, I'm Leila from Cairo, I teach high school chemistry and I'm learning Python after work.",
    "I'm Ravi, 27, and I'm studying for the GRE while I work part time at a bakery.",
    "This week I'm revising thermodynamics, then I'm moving on to optics, and after that I'm taking a break.",
    "Yesterday I finished the recursion chapter, then I watched a lecture on trees and finally I did three "
    "exercises.",
    "My name is Ines, I'm a nurse in Lisbon and I want to learn Japanese before my trip next spring.",
    "Next month I'll take the B2 exam, and then I'm going to apply for the master's program.",
    "I'm a backend developer at a logistics startup and I'm learning Rust before we rewrite our router "
    "service.",
    "So I'm Kofi, I'm a self-taught guitarist, and I'm getting into jazz theory before the summer workshop.",
    "Right now I'm on chapter four, then I need to finish the exercises, and I'm hoping to start chapter "
    "five "
    "by Friday.",
    "Hello! Priya here, I'm a data analyst and I'm trying to get comfortable with SQL window functions "
    "before "
    "my promotion review.",
    "Cool, the fix worked. Now I want a histogram of the ages, then a box plot per group.",
]

# (previous message, message, words the name must hold, words it must not)
NAMED = [
    (
        "Hiya, Sam here, revising for my stats exam on Friday.",
        "here's how I standardise a score: first subtract the mean, then divide by the standard deviation, "
        "and finally look it up in the z table.",
        ["standardise a score"],
        ["Sam", "here's"],
    ),
    (
        "",
        "My supervisor showed me how we back up the lab database, noting it here so I remember: first stop "
        "the writer service, then dump the tables with pg_dump, then copy the dump to the NAS, and finally "
        "restart the service.",
        ["back up the lab database"],
        ["supervisor", "remember"],
    ),
    (
        "",
        "Every evening I do the same few things: 1) review my flashcards, 2) read one short story aloud, "
        "3) write a diary line in Spanish.",
        ["evening"],
        ["same few things"],
    ),
    (
        "Hello hello! Revision day for CHEM201, can you check my method for mole calculations?",
        "1) balance the equation, 2) convert grams to moles, 3) use the mole ratio, 4) convert back to grams",
        ["mole calculations"],
        ["Hello", "Revision day"],
    ),
    (
        "Hi, I'm Dana, TA for an intro course. I'm now the one grading the quizzes, so I want to do it "
        "right.",
        "First I export the answers from Moodle, then I run the marking script, then I check five "
        "papers, and finally I upload the marks.",
        ["grading the quizzes"],
        ["Dana", "I'm now"],
    ),
    (
        "",
        "When I start a new Django project I make a virtualenv first, then I install Django, then I run "
        "startproject, and finally I commit the skeleton.",
        ["start a new Django project"],
        ["virtualenv"],
    ),
    (
        "",
        "Writing down my checklist for submitting a lab report so I stop losing marks: check the units, "
        "number the figures, cite the manual, then upload the PDF.",
        ["submitting a lab report"],
        ["losing marks", "Writing down"],
    ),
    (
        "",
        "ok so this is how I factor a quadratic, correct me if I'm off: find two numbers that multiply to "
        "ac, "
        "then split the middle term, group the pairs, and finally factor out the common bracket.",
        ["factor a quadratic"],
        ["correct me"],
    ),
    (
        "",
        "My coach gave us a warm-up routine for sprint days: jog two laps, then do leg swings, then high "
        "knees, and finally three strides.",
        ["warm-up"],
        ["coach gave"],
    ),
    (
        "Kenji here, learning Portuguese for a job in Porto.",
        "My morning routine: 1) Anki reviews, 2) one podcast episode, 3) write two sentences in my notebook.",
        ["morning routine"],
        ["Kenji", "Porto"],
    ),
    (
        "",
        "The method our tutor gave us to solve a first-order linear ODE: find the integrating factor, then "
        "multiply both sides by it, integrate, and finally divide by the factor.",
        ["solve a first-order linear ODE"],
        ["tutor"],
    ),
    (
        "ugh, my build broke again and I have no idea why",
        "my usual routine when a test fails on CI: first I rerun it locally, then I read the full log, then "
        "I "
        "bisect the recent commits, and last I write a regression test.",
        ["test fails on CI"],
        ["ugh", "no idea"],
    ),
]


def _saved(text: str, context: str = "") -> list[dict]:
    return [args for name, args in plan_actions(text, AVAILABLE, {}, context) if name == "save_procedure"]


@pytest.mark.parametrize("text", NOT_PROCEDURES)
def test_an_introduction_plan_or_story_is_no_procedure(text: str) -> None:
    assert _saved(text) == []


@pytest.mark.parametrize(("context", "text", "holds", "lacks"), NAMED)
def test_a_procedure_is_named_by_its_task(
    context: str, text: str, holds: list[str], lacks: list[str]
) -> None:
    saved = _saved(text, context)
    assert len(saved) == 1
    name = saved[0]["name"].lower()
    assert all(word.lower() in name for word in holds), name
    assert not any(word.lower() in name for word in lacks), name
