"""Erasure's Redis half: every checkpoint thread of the learner, then every key KAG keeps for them.

Checkpoints (``agent.checkpoint.erase``): the threads the learner owns (server runs,
and local runs that name their learner with ``owned_config``), and the threads written
without an owner whose ``learner_id`` channel, or the run input it came from, names
the learner (notebooks, and the CLI before it recorded owners). Each goes whole:
checkpoints, pending writes, blobs, namespaces, owner record and index entries. Both
the configured prefix (``KAG_CHECKPOINT_PREFIX``, the server's) and the default one are
erased: a local run with the variable unset wrote under the default.

Keys: core memory, the artifact stream, the kernel stream and every other
``P:kernel:{L}:*`` key (tail, generation, parked and dead entries, lock, idempotency
keys, cached consultations), the recent-items caches, the reminder flag and the sensory
buffer; the learner leaves the shared sets of active, parked and sentence-pending
learners, and the entries erased before the worker applied them leave the backlog depth.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from redis.exceptions import RedisError

from agent.checkpoint.aio import AsyncRedisSaver
from agent.checkpoint.base import DEFAULT_PREFIX
from agent.checkpoint.erase import Adopt
from agent.errors import InvalidInputError, StoreUnavailableError
from agent.kernel.sentences import pending_set_key
from agent.memory.backlog import WriteBacklog
from agent.memory.core import core_key
from agent.memory.reminders import flag_key as reminder_flag_key
from agent.memory.sensory import sensory_prefix
from agent.notes.artifacts import stream_key as artifact_stream_key
from agent.resources import Resources
from agent.validation import validate_learner_id

ADOPT_CHANNELS = ("learner_id", "__start__")
"""Root-namespace channels that say whose an unowned thread is: the graphs' ``learner_id``
(every graph keeps it) and ``__start__``, the run input (a run that stopped before its first
node left only that)."""


def names_learner(learner_id: str) -> Adopt:
    """``adopt`` for ``AsyncRedisSaver.aerase_owner``: the value (or the input's ``learner_id``) is L."""

    def adopt(channel: str, value: Any) -> bool:
        if isinstance(value, Mapping):
            value = value.get("learner_id")
        if not isinstance(value, str):
            return False
        try:
            return validate_learner_id(value) == learner_id
        except InvalidInputError:
            return False

    return adopt


def checkpoint_prefixes(resources: Resources) -> list[str]:
    """The configured checkpoint prefix (the server's), and the default one local runs use unset."""
    return list(dict.fromkeys([resources.settings.checkpoint_prefix or DEFAULT_PREFIX, DEFAULT_PREFIX]))


async def erase_checkpoints(resources: Resources, learner_id: str) -> int:
    """Delete every checkpoint thread of the learner (see the module doc); returns how many."""
    adopt = names_learner(learner_id)
    erased = 0
    # One bytes client (a plain or cluster URL) for the savers of every prefix.
    async with AsyncRedisSaver.from_conn_string(resources.settings.redis_url) as opened:
        for prefix in checkpoint_prefixes(resources):
            saver = AsyncRedisSaver(opened.client, key_prefix=prefix)
            await saver.setup()  # loads the scripts; indexes threads written before the owner index
            erased += len(await saver.aerase_owner(learner_id, adopt=adopt, channels=ADOPT_CHANNELS))
    return erased


def _glob(text: str) -> str:
    """``text`` as a literal SCAN pattern (hash tags carry braces; ids may carry glob characters)."""
    return "".join(f"\\{c}" if c in "*?[]{}\\" else c for c in text)


async def erase_keys(resources: Resources, learner_id: str) -> int:
    """Delete every Redis key KAG keeps for the learner; returns how many keys went."""
    redis = resources.redis
    backlog = WriteBacklog(redis, prefix=resources.settings.kernel_prefix, auto_replay=False)
    kernel = backlog.kernel
    keys = [
        core_key(learner_id),
        artifact_stream_key(learner_id),
        *kernel.learner_keys(learner_id),
        backlog.recent_key("archival", learner_id),
        backlog.recent_key("recall", learner_id),
        reminder_flag_key(learner_id),
    ]
    # Families of keys named after the learner: the kernel's (idempotency keys, cached
    # consultations, ...) and the sensory buffer's items, each under the learner's hash tag.
    patterns = [_glob(kernel.key(learner_id, "")) + "*", _glob(sensory_prefix(learner_id)) + "*"]
    try:
        for pattern in patterns:
            keys += [k async for k in redis.scan_iter(match=pattern, count=1000)]
        # Entries erased before the worker applied them leave the global depth count.
        pending = await kernel.depth(learner_id)
        # One key per command: the keys sit in different Redis Cluster slots.
        async with redis.pipeline(transaction=False) as pipe:
            for key in dict.fromkeys(keys):
                pipe.delete(key)
            for shared in (kernel.active_key, kernel.parked_key, pending_set_key(kernel.prefix)):
                pipe.srem(shared, learner_id)
            if pending:
                pipe.decrby(kernel.depth_key, pending)
            replies = await pipe.execute()
    except (RedisError, OSError) as exc:
        raise StoreUnavailableError("Redis", str(exc)) from exc
    return sum(int(r) for r in replies[: len(dict.fromkeys(keys))])
