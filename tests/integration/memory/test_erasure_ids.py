"""Every learner-id shape the API accepts is stored under one canonical id, and erased whole."""

from __future__ import annotations

import uuid

import pytest

from agent.language import grammar
from agent.memory.archival import ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.memory.core import CoreMemoryStore, core_key
from agent.memory.erasure import erase_learner, owned_nodes
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources
from agent.validation import validate_learner_id


def id_shapes() -> list[tuple[str, str]]:
    """(name, learner id as a client might send it), each unique per run."""
    hex_ = uuid.uuid4().hex
    return [
        ("uuid", str(uuid.uuid4())),
        ("uuid-upper", str(uuid.uuid4()).upper()),
        ("uuid-braced", "{" + str(uuid.uuid4()) + "}"),
        ("uuid-hex", uuid.uuid4().hex),
        ("uuid-urn", uuid.uuid4().urn),
        ("slug", f"Ana_{hex_[:8]}-b"),
        ("slug-64", ("Z" + hex_ + hex_)[:64]),
    ]


@pytest.mark.parametrize("shape", [name for name, _ in id_shapes()])
async def test_every_accepted_id_shape_is_erased(resources: Resources, shape: str) -> None:
    raw = dict(id_shapes())[shape]
    canonical = validate_learner_id(raw)
    backlog = WriteBacklog(resources.redis, auto_replay=False)
    kwargs = {"database": resources.database, "backlog": backlog}
    archival = ArchivalStore(resources.neo4j, resources.embeddings, **kwargs)
    recall = RecallStore(resources.neo4j, resources.embeddings, **kwargs)
    core = CoreMemoryStore(resources.redis)
    try:
        message = RecallMessage(id=f"{canonical}-m1", role="user", content="What is a join?")
        assert (await recall.log_messages(raw, "s-1", [message])).count == 1
        record = await archival.insert(raw, "Joins combine tables", source_ids=[message.id])
        assert record.learner_id == canonical and record.linked_sources == 1
        await archival.write_summary(
            raw, "Asked about joins", message_ids=[message.id], previous_summary_id=None, session_id="s-1"
        )
        await core.append(raw, "user_profile", "Name: Ana")
        assert await owned_nodes(resources, raw) == 3
        assert await owned_nodes(resources, canonical) == 3

        await erase_learner(resources, raw)

        assert await owned_nodes(resources, canonical) == 0
        records, _, _ = await resources.neo4j.execute_query(
            "MATCH (l:Learner {id: $l}) RETURN count(l) AS n", l=canonical, database_=resources.database
        )
        assert records[0]["n"] == 0
        assert not await resources.redis.exists(
            core_key(canonical), backlog.recent_key("archival", canonical)
        )
    finally:
        await erase_learner(resources, canonical)


async def test_the_erasure_empties_the_process_parse_memo(resources: Resources) -> None:
    """The language layer's parse memo holds learner words: an erasure leaves none in memory."""
    learner = validate_learner_id(f"parse-{uuid.uuid4().hex[:8]}")
    grammar.clauses("My stipend is 500 euros a month, said Zorblax.")
    assert grammar.parse.cache_info().currsize > 0
    await erase_learner(resources, learner)
    assert grammar.parse.cache_info().currsize == 0
