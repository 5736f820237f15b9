"""``ArchivalStore.insert_many``: one embedding call and one transaction for a batch, all or nothing."""

from __future__ import annotations

import pytest

from agent.errors import InvalidInputError
from agent.memory.archival import ArchivalStore
from agent.memory.recall import RecallStore
from agent.resources import Resources
from tests.integration.memory.test_archival_store import rows, stores  # noqa: F401  (fixture)


async def test_a_batch_is_stored_in_order_with_links(
    stores: tuple[ArchivalStore, RecallStore],  # noqa: F811
    learner_id: str,
    resources: Resources,
) -> None:
    archival, _ = stores
    first = await archival.insert(learner_id, "Joins combine tables", memory_id=f"{learner_id}-src")
    drafts = [
        {"content": "Inner joins keep matches", "source_ids": [first.id], "session_id": "s-1"},
        {"content": "Left joins keep every left row", "kind": "turn_context", "tags": ["sql"]},
        {"content": "Joins combine tables", "memory_id": f"{learner_id}-src"},  # already stored
    ]
    calls: list[int] = []
    real = archival.embed_documents

    async def counting(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return await real(texts)

    archival.embed_documents = counting  # type: ignore[method-assign]
    records = await archival.insert_many(learner_id, drafts)
    del archival.embed_documents
    assert calls == [3]  # one embedding call for the batch
    assert [r.created for r in records] == [True, True, False]
    assert first.seq < records[0].seq < records[1].seq and records[2].seq == first.seq
    assert records[0].linked_sources == 1 and records[1].kind == "turn_context" and records[1].tags == ["sql"]
    stored = await rows(
        resources,
        "MATCH (:Learner {id: $l})-[:HAS_MEMORY]->(m:Memory) "
        "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(s) RETURN m.id AS id, s.id AS source ORDER BY m.seq",
        l=learner_id,
    )
    assert [(r["id"], r["source"]) for r in stored] == [
        (first.id, None),
        (records[0].id, first.id),
        (records[1].id, None),
    ]
    assert await archival.insert_many(learner_id, []) == []


async def test_a_batch_with_a_foreign_id_writes_nothing(
    stores: tuple[ArchivalStore, RecallStore],  # noqa: F811
    learner_id: str,
    resources: Resources,
) -> None:
    archival, _ = stores
    await archival.insert(learner_id, "Mine", memory_id=f"{learner_id}-shared")
    other = f"{learner_id}-other"
    drafts = [{"content": "Fresh and valid"}, {"content": "Theirs", "memory_id": f"{learner_id}-shared"}]
    with pytest.raises(InvalidInputError, match="another learner"):
        await archival.insert_many(other, drafts)
    assert await rows(resources, "MATCH (m:Memory {learner_id: $l}) RETURN m.id AS id", l=other) == []
    with pytest.raises(InvalidInputError, match="kind"):  # validated before anything is written
        await archival.insert_many(other, [{"content": "ok"}, {"content": "bad", "kind": "no spaces!"}])
    assert await rows(resources, "MATCH (m:Memory {learner_id: $l}) RETURN m.id AS id", l=other) == []
