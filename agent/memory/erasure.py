"""Erase everything KAG stores for one learner (evaluation runs, right to erasure).

Neo4j: notes and their revisions, memories and summaries, messages and their sentences, the
durable core memory sections, reminders, promoted sensory traces, the ``Learner`` node.
Redis: core memory, the artifact stream, the write backlog, the recent-items cache and the
sensory buffer. Shared indexes and other learners are untouched.
"""

from __future__ import annotations

from typing import Any

from redis.exceptions import RedisError

from agent.errors import StoreUnavailableError
from agent.graphdb.store import fetch
from agent.memory.backlog import WriteBacklog
from agent.memory.cognitive_queries import DELETE_REMINDERS
from agent.memory.core import CoreMemoryStore
from agent.memory.queries import (
    COUNT_OWNED,
    DELETE_CORE_SECTIONS,
    DELETE_LEARNER,
    DELETE_MEMORIES,
    DELETE_MESSAGES,
    DELETE_SENSORY_TRACES,
    DELETE_SENTENCES,
)
from agent.memory.reminders import flag_key as reminder_flag_key
from agent.memory.sensory import SensoryBuffer
from agent.notes.artifacts import stream_key as artifact_stream_key
from agent.notes.queries import DELETE_LEARNER_NOTES
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.validation import validate_learner_id


async def erase_learner(resources: Resources, learner_id: str) -> None:
    """Delete the learner's Neo4j nodes and Redis keys."""
    learner_id = validate_learner_id(learner_id)

    async def erase(tx: Any) -> None:
        for query in (
            DELETE_LEARNER_NOTES,
            DELETE_MEMORIES,
            DELETE_MESSAGES,
            DELETE_SENTENCES,
            DELETE_REMINDERS,
            DELETE_SENSORY_TRACES,
            DELETE_CORE_SECTIONS,
            DELETE_LEARNER,
        ):
            await fetch(tx, query, learner_id=learner_id)

    # One write transaction through the stores' access path (errors mapped in one place).
    await NoteStore.for_resources(resources).write(erase)
    backlog = WriteBacklog(resources.redis, prefix=resources.settings.kernel_prefix, auto_replay=False)
    await CoreMemoryStore(resources.redis).clear(learner_id)
    await SensoryBuffer(resources.redis).clear(learner_id)
    keys = [
        artifact_stream_key(learner_id),
        *backlog.kernel.learner_keys(learner_id),
        backlog.recent_key("archival", learner_id),
        backlog.recent_key("recall", learner_id),
        reminder_flag_key(learner_id),
    ]
    try:
        # Idempotency keys and cached consultations: the learner's hash tag, one slot.
        pattern = backlog.kernel.key(learner_id, "*").replace("{", "\\{").replace("}", "\\}")
        keys += [k async for k in resources.redis.scan_iter(match=pattern, count=1000)]
        # Entries erased before the worker applied them leave the global depth count.
        pending = await backlog.kernel.depth(learner_id)
        # One key per command: the keys sit in different Redis Cluster slots.
        async with resources.redis.pipeline(transaction=False) as pipe:
            for key in dict.fromkeys(keys):
                pipe.delete(key)
            pipe.srem(backlog.learners_key, learner_id)
            pipe.srem(backlog.kernel.active_key, learner_id)
            if pending:
                pipe.decrby(backlog.kernel.depth_key, pending)
            await pipe.execute()
    except (RedisError, OSError) as exc:
        raise StoreUnavailableError("Redis", str(exc)) from exc


async def owned_nodes(resources: Resources, learner_id: str) -> int:
    """Memories, messages and notes Neo4j still holds for the learner (0 after ``erase_learner``)."""
    learner_id = validate_learner_id(learner_id)
    rows = await NoteStore.for_resources(resources).read(
        lambda tx: fetch(tx, COUNT_OWNED, learner_id=learner_id)
    )
    return int(rows[0]["owned"])
