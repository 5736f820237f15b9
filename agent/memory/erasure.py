"""Erase everything KAG stores for one learner (evaluation runs, right to erasure).

Neo4j: notes and their revisions, memories and summaries, messages, the
durable core memory sections, the ``Learner`` node. Redis: core memory, the artifact stream, the write backlog
and the recent-items cache. Shared indexes and other learners are untouched.
"""

from __future__ import annotations

import neo4j
from redis.exceptions import RedisError

from agent.errors import StoreUnavailableError
from agent.memory.backlog import WriteBacklog
from agent.memory.core import CoreMemoryStore
from agent.memory.queries import (
    COUNT_OWNED,
    DELETE_CORE_SECTIONS,
    DELETE_LEARNER,
    DELETE_MEMORIES,
    DELETE_MESSAGES,
)
from agent.notes.artifacts import stream_key as artifact_stream_key
from agent.notes.store import delete_learner_notes
from agent.resources import Resources
from agent.validation import validate_learner_id


async def erase_learner(resources: Resources, learner_id: str) -> None:
    """Delete the learner's Neo4j nodes and Redis keys."""
    learner_id = validate_learner_id(learner_id)
    database = resources.database
    try:
        await delete_learner_notes(resources.neo4j, learner_id, database=database)
        for query in (DELETE_MEMORIES, DELETE_MESSAGES, DELETE_CORE_SECTIONS, DELETE_LEARNER):
            await resources.neo4j.execute_query(query, learner_id=learner_id, database_=database)
    except (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired, OSError) as exc:
        raise StoreUnavailableError("Neo4j", str(exc)) from exc
    backlog = WriteBacklog(resources.redis, auto_replay=False)
    await CoreMemoryStore(resources.redis).clear(learner_id)
    keys = [
        artifact_stream_key(learner_id),
        backlog.stream_key(learner_id),
        backlog.dead_key(learner_id),
        backlog.recent_key("archival", learner_id),
        backlog.recent_key("recall", learner_id),
    ]
    try:
        await resources.redis.delete(*keys)
        await resources.redis.srem(backlog.learners_key, learner_id)
    except (RedisError, OSError) as exc:
        raise StoreUnavailableError("Redis", str(exc)) from exc


async def owned_nodes(resources: Resources, learner_id: str) -> int:
    """Memories, messages and notes Neo4j still holds for the learner (0 after ``erase_learner``)."""
    records, _, _ = await resources.neo4j.execute_query(
        COUNT_OWNED, learner_id=validate_learner_id(learner_id), database_=resources.database
    )
    return int(records[0]["owned"])
