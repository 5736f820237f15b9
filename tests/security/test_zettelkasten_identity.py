"""The Zettelkasten graph invoked directly: its input names the learner, so it is a target.

Alice first writes notes of her own (control). Bob then names her in the input, in a
command update, or in a ``Send`` to any node: refused, and her note count does not move.
With his own id, the graph works for bob (control).
"""

from __future__ import annotations

import pytest

from agent.notes.store import COUNT_NOTES
from agent.resources import Resources
from tests.security.attack import (
    TRANSCRIPT,
    ZETTELKASTEN_NODES,
    everything_seen,
    no_secret,
)

pytestmark = [pytest.mark.integration, pytest.mark.server]

BOB_TRANSCRIPT = [
    {"role": "user", "content": "bob was here. How does a hash join work?"},
    {
        "role": "assistant",
        "content": "It builds a hash table on the smaller input and probes it with the other.",
    },
]


async def notes_of(resources: Resources, learner_id: str) -> int:
    """How many Zettelkasten notes ``learner_id`` owns."""
    records, _, _ = await resources.neo4j.execute_query(
        COUNT_NOTES, learner_id=learner_id, database_=resources.database
    )
    return records[0]["n"]


@pytest.fixture(scope="module")
async def alice_notes(as_alice, alice, resources: Resources) -> int:
    """Alice's notes from a session of her own (control: she has some)."""
    thread_id = (await as_alice.threads.create())["thread_id"]
    payload = {"learner_id": alice.learner_id, "transcript": TRANSCRIPT, "current_concept": "sql.joins"}
    seen = await everything_seen(as_alice, thread_id, "zettelkasten", input=payload)
    assert seen.status is None and seen.errors == [], seen.text()[:3000]
    count = await notes_of(resources, alice.learner_id)
    assert count > 0, "control: the owner's run writes notes"
    return count


async def test_bob_cannot_write_notes_for_alice(
    as_bob, alice, resources, alice_notes, alice_unchanged
) -> None:
    payload = {"learner_id": alice.learner_id, "transcript": BOB_TRANSCRIPT, "current_concept": "sql.joins"}
    thread_id = (await as_bob.threads.create())["thread_id"]
    for thread in (thread_id, None):
        seen = await everything_seen(as_bob, thread, "zettelkasten", input=payload)
        assert seen.status == 403, seen.text()[:3000]
        no_secret(seen.text())
    assert await notes_of(resources, alice.learner_id) == alice_notes
    await alice_unchanged()


@pytest.mark.parametrize("form", ["dict", "pairs"])
@pytest.mark.parametrize("goto", ZETTELKASTEN_NODES)
async def test_a_command_naming_alice_is_refused_at_every_node(
    as_bob, alice, resources, alice_notes, alice_unchanged, goto, form
) -> None:
    pairs = [
        ["learner_id", alice.learner_id],
        ["transcript", BOB_TRANSCRIPT],
        ["current_concept", "sql.joins"],
    ]
    update = pairs if form == "pairs" else dict(pairs)
    thread_id = (await as_bob.threads.create())["thread_id"]

    seen = await everything_seen(as_bob, thread_id, "zettelkasten", command={"update": update, "goto": goto})

    assert seen.status == 403, seen.text()[:3000]
    assert await notes_of(resources, alice.learner_id) == alice_notes
    await alice_unchanged()


@pytest.mark.parametrize("goto", ZETTELKASTEN_NODES)
async def test_a_send_naming_alice_never_runs_a_note_step_for_her(
    as_bob, alice, resources, alice_notes, alice_unchanged, goto
) -> None:
    draft = {"title": "bob was here", "content": "bob was here", "keywords": ["bob"], "tags": ["sql"]}
    send_input = {
        "learner_id": alice.learner_id,
        "transcript": BOB_TRANSCRIPT,
        "current_concept": "sql.joins",
        "drafts": [draft],
        "created": [],
    }
    thread_id = (await as_bob.threads.create())["thread_id"]

    seen = await everything_seen(
        as_bob, thread_id, "zettelkasten", command={"goto": {"node": goto, "input": send_input}}
    )

    if seen.status is not None:
        assert seen.status == 403, seen.text()[:3000]
    else:
        assert seen.errors and seen.errors[0]["error"] == "LearnerMismatchError", seen.text()[:3000]
    assert await notes_of(resources, alice.learner_id) == alice_notes
    await alice_unchanged()


async def test_bob_with_his_own_id_gets_his_own_notes(as_bob, bob, resources, alice, alice_notes) -> None:
    before = await notes_of(resources, bob.learner_id)
    thread_id = (await as_bob.threads.create())["thread_id"]
    payload = {"learner_id": bob.learner_id, "transcript": TRANSCRIPT, "current_concept": "sql.joins"}

    seen = await everything_seen(as_bob, thread_id, "zettelkasten", input=payload)

    assert seen.status is None and seen.errors == [], seen.text()[:3000]
    assert seen.of("values")[-1]["artifacts"], "control: the graph works for its caller"
    assert await notes_of(resources, bob.learner_id) > before
    assert await notes_of(resources, alice.learner_id) == alice_notes
