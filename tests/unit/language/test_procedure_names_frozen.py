"""The frozen twin of ``test_procedure_names.py``: written with it, before tuning, and never tuned on.

Its own phrasings (none from a scenario set). A failure here is reported, not tuned away.
"""

from __future__ import annotations

import pytest

from agent.models.offline_policy import plan_actions

AVAILABLE = {"save_procedure", "recall_procedure"}

NOT_PROCEDURES = [
    "Good evening! I'm Oluwaseun, a civil engineering student, and I'm brushing up on linear algebra before "
    "my internship starts.",
    "hey, Marta here, I work in accounting and I'm learning Excel macros before tax season.",
    "I'm 41, I'm a chef, and I'm finally learning to read sheet music before my daughter's recital.",
    "Last Saturday I cleaned the dataset, then I trained a baseline and finally I wrote the report.",
    "This semester I'm taking organic chemistry, then I'm doing a summer lab placement, and after that I'm "
    "applying to med school.",
    "My name's Chen, I'm from Shenzhen and I want to pass the IELTS before I move to Melbourne.",
    "Tomorrow I'll review the notes, then I'll probably do a mock paper.",
    "Yo, I'm Bastien, a music producer, and I'm trying to understand compression before I mix my EP.",
    "Nice, that regex matched. Now I want the dates pulled out, then a count per month.",
    "I'm a retired teacher and I'm learning Greek before our trip to Crete in May.",
]

NAMED = [
    (
        "morning! Olu here, cramming for circuits.",
        "this is how I find the Thevenin equivalent: first remove the load, then find the open-circuit "
        "voltage, "
        "then turn off the sources and find the resistance.",
        ["thevenin equivalent"],
        ["olu", "cramming"],
    ),
    (
        "",
        "Our lab manager showed me how we calibrate the pH meter, jotting it down so I don't mess it up: "
        "first "
        "rinse the probe, then dip it in the pH 7 buffer, then the pH 4 buffer, and finally rinse it again.",
        ["calibrate the ph meter"],
        ["lab manager", "jotting"],
    ),
    (
        "",
        "Every night I do the same thing: 1) read ten pages of my novel, 2) note three new words, 3) listen "
        "to one episode of a French podcast.",
        ["night"],
        ["same thing"],
    ),
    (
        "Hey! Mock exam week for PHYS110, can you look over my method for projectile problems?",
        "1) split the velocity into components, 2) find the time of flight, 3) use it to get the range",
        ["projectile problems"],
        ["hey", "mock exam"],
    ),
    (
        "I'm Ana, I just joined the support team and I'm now the one triaging the bug reports.",
        "First I check for duplicates, then I add the labels, then I ask for a reproduction, and finally I "
        "assign it to a developer.",
        ["triaging the bug reports"],
        ["ana", "just joined"],
    ),
    (
        "",
        "When I set up a new laptop I install the password manager first, then I clone my dotfiles, then I "
        "install pyenv and finally I sign into Slack.",
        ["set up a new laptop"],
        ["password manager"],
    ),
    (
        "",
        "Writing down my procedure for filing an expense claim so I stop getting it bounced: scan the "
        "receipt, "
        "fill in the form, attach the scan, then send it to my manager.",
        ["filing an expense claim"],
        ["bounced", "writing down"],
    ),
    (
        "",
        "my evening routine, just so you know: 1) Anki reviews, 2) one episode of a podcast, 3) write a "
        "short "
        "diary entry",
        ["evening routine"],
        ["so you know"],
    ),
    (
        "",
        "The way our instructor taught us to change a bike tyre: take the wheel off, then lever the tyre "
        "off, "
        "swap the tube, and finally pump it up.",
        ["change a bike tyre"],
        ["instructor"],
    ),
    (
        "argh, my Docker container keeps dying and I'm lost",
        "my routine when a container crashes: first I read docker logs, then I check the exit code, then I "
        "run "
        "it interactively, and last I check the memory limit.",
        ["container crashes"],
        ["argh", "lost"],
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
