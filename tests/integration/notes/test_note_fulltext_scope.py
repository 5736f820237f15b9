"""Note full text is scoped to the learner inside Lucene, not filtered after a global top-k.

Before, the note searches asked the shared note index for its global top-k and kept the
learner's rows: another learner's notes on the same words crowded the learner's own note
out of the full-text list. Here learner B writes more such notes than the search fetches,
and learner A's note must still come back from full text.
"""

from __future__ import annotations

import uuid

import pytest

from agent.notes.queries import FULLTEXT_INDEX, UNSCOPED_FULLTEXT_INDEX
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.server.dashboard.reads import RRF_K, DashboardReads
from tests.integration.notes.rows import note_row

CROWD = 320
"""More than the dashboard's global fetch (k x 20)."""


@pytest.fixture
async def crowded(resources: Resources, learner_id: str) -> tuple[str, str, str]:
    """A's one note on a rare word, and ``CROWD`` of B's notes that score higher on it."""
    word = f"zq{uuid.uuid4().hex[:8]}"
    store = NoteStore.for_resources(resources)
    await store.ensure_schema()
    mine = f"Window functions: ranking rows with {word} over a partition of the table, step by step."
    note = note_row(learner_id, mine, await store.embed_query(mine))
    await store.upsert_note(learner_id, note)
    other = f"{learner_id}-other"
    theirs = await store.embed_query(f"{word} {word}")
    await store.upsert_notes(other, [note_row(other, f"{word} {word}: {i}", theirs) for i in range(CROWD)])
    return learner_id, word, note["id"]


async def test_the_dashboard_finds_the_learners_note_by_full_text(
    resources: Resources, crowded: tuple[str, str, str]
) -> None:
    learner_id, word, note_id = crowded
    cards = await DashboardReads.for_resources(resources).search_notes(resources, learner_id, word, k=2)
    assert [c["id"] for c in cards] == [note_id], "only the learner's own note"
    # Found by both lists (vector and full text): 1/(k+1) each. Full text alone was crowded out.
    assert cards[0]["score"] == pytest.approx(2 / (RRF_K + 1), abs=1e-4)


async def test_notes_written_before_the_key_get_it_and_the_unscoped_index_is_gone(
    resources: Resources, learner_id: str
) -> None:
    store = NoteStore.for_resources(resources)
    await store.ensure_schema()
    word = f"zq{uuid.uuid4().hex[:8]}"
    note = note_row(learner_id, f"Older note: {word} from before the key.", [0.0] * 384)
    async with resources.neo4j.session(database=resources.database) as session:
        # As UPSERT_NOTE wrote notes before it set ``learner_key``.
        await (await session.run("CREATE (n:Note) SET n = $note", note=note)).consume()
    assert await store.text_hits(learner_id, word, k=5) == [], "a note without a key is not found"
    await store.key_older_notes()
    assert [h["id"] for h in await store.text_hits(learner_id, word, k=5)] == [note["id"]]
    async with resources.neo4j.session(database=resources.database) as session:
        names = await (await session.run("SHOW INDEXES YIELD name RETURN collect(name) AS names")).single()
    assert UNSCOPED_FULLTEXT_INDEX not in names["names"]
    assert FULLTEXT_INDEX in names["names"]
