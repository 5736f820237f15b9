"""Search fixtures: an archival store over the real Neo4j with a private backlog."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from agent.memory.archival import ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.resources import Resources


@pytest.fixture
async def archival(resources: Resources, learner_id: str) -> AsyncIterator[ArchivalStore]:
    """An archival store with a private backlog; deletes this learner's and its neighbour's data."""
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}")
    store = ArchivalStore(resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog)
    await store.setup()
    yield store
    await backlog.wait_idle()
    async with resources.neo4j.session(database=resources.database) as session:
        for lid in (learner_id, f"{learner_id}-other"):
            await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)
