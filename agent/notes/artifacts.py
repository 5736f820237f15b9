"""``ARTIFACT_READY`` events on a Redis Stream per learner, and the consumer API.

Stream ``kag:artifacts:{learner_id}``; each entry has ``event``, ``note_id``
and ``artifact`` (the artifact schema as JSON). A dashboard either reads with
a consumer group (each entry delivered once per group; ``ack`` after use;
``read_group(..., pending=True)`` re-reads what this consumer has not acked)
or resumes without a group from the last stream id it saw (``read_since``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from agent.errors import StoreError, StoreUnavailableError
from agent.notes.models import Artifact
from agent.validation import validate_learner_id

EVENT = "ARTIFACT_READY"
STREAM_MAXLEN = 10_000  # approximate trim; a dashboard older than this re-syncs from Neo4j


@dataclass(frozen=True)
class ArtifactEvent:
    """One stream entry."""

    stream_id: str
    event: str
    artifact: Artifact


def stream_key(learner_id: str) -> str:
    """The learner's artifact stream."""
    return f"kag:artifacts:{validate_learner_id(learner_id)}"


@contextlib.contextmanager
def _guard() -> Iterator[None]:
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
        raise StoreUnavailableError("Redis", str(exc)) from exc
    except ResponseError as exc:
        raise StoreError(f"Redis: {exc}") from exc


def _event(stream_id: str, fields: dict[str, str]) -> ArtifactEvent:
    return ArtifactEvent(stream_id, fields.get("event", EVENT), json.loads(fields["artifact"]))


async def publish_artifacts(redis: aioredis.Redis, learner_id: str, artifacts: list[Artifact]) -> list[str]:
    """Append one ``ARTIFACT_READY`` entry per artifact; return their stream ids."""
    if not artifacts:
        return []
    key = stream_key(learner_id)
    with _guard():
        async with redis.pipeline(transaction=True) as pipe:
            for artifact in artifacts:
                fields = {
                    "event": EVENT,
                    "note_id": artifact["note_id"],
                    "artifact": json.dumps(artifact, ensure_ascii=False),
                }
                pipe.xadd(key, fields, maxlen=STREAM_MAXLEN, approximate=True)
            return [str(i) for i in await pipe.execute()]


async def ensure_group(redis: aioredis.Redis, learner_id: str, group: str, *, start_id: str = "0") -> None:
    """Create consumer ``group`` (idempotent); ``start_id`` "0" replays history, "$" skips it."""
    key = stream_key(learner_id)
    with _guard():
        try:
            await redis.xgroup_create(key, group, id=start_id, mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise


async def read_group(
    redis: aioredis.Redis,
    learner_id: str,
    group: str,
    consumer: str,
    *,
    count: int = 50,
    block_ms: int | None = None,
    pending: bool = False,
) -> list[ArtifactEvent]:
    """New entries for ``consumer`` in ``group`` (each delivered once per group).

    ``pending=True`` returns entries already delivered to this consumer but not
    acked (after a crash), instead of new ones.
    """
    key = stream_key(learner_id)
    start = "0" if pending else ">"
    with _guard():
        reply: Any = await redis.xreadgroup(group, consumer, {key: start}, count=count, block=block_ms)
    return [_event(sid, fields) for _, entries in reply or [] for sid, fields in entries if fields]


async def ack(redis: aioredis.Redis, learner_id: str, group: str, *stream_ids: str) -> int:
    """Acknowledge processed entries; return how many were pending."""
    if not stream_ids:
        return 0
    with _guard():
        return int(await redis.xack(stream_key(learner_id), group, *stream_ids))


async def read_since(
    redis: aioredis.Redis,
    learner_id: str,
    last_id: str = "0",
    *,
    count: int = 100,
    block_ms: int | None = None,
) -> list[ArtifactEvent]:
    """Entries after ``last_id`` without a group: a dashboard resumes from its last id."""
    key = stream_key(learner_id)
    with _guard():
        reply: Any = await redis.xread({key: last_id}, count=count, block=block_ms)
    return [_event(sid, fields) for _, entries in reply or [] for sid, fields in entries]


async def delete_stream(redis: aioredis.Redis, learner_id: str) -> None:
    """Drop the learner's stream and its groups (tests, right-to-erasure)."""
    with _guard():
        await redis.delete(stream_key(learner_id))
