"""The consultation cache: 5 minutes in Redis, invalidated by the learner's writes.

Key: ``kag:kernel:{<learner>}:consult:<sha256>`` over the learner's **write
generation** (``KernelStream.generation``: it changes on every write of that learner),
the query, the context, the sorted topic filters, ``max_results`` and
``include_insights``. A write moves the generation, so the next consultation computes a
new key and misses; the old entry is never read again and expires with its TTL. Another
learner's writes move only their own generation. The ``{learner}`` hash tag keeps every
key of one learner in one Redis Cluster slot. A consultation racing a write stores its
payload under the generation it read before searching, which is already stale, so it
is never served after the write.

Without a generation source (no kernel stream) nothing is cached: a cache that writes
cannot invalidate would serve stale briefs. A Redis error on the cache is logged and
treated as a miss (or a skipped store): the consultation itself goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any, Protocol

from redis.exceptions import RedisError

from agent.errors import KAGError, StoreUnavailableError
from agent.kernel.consult.models import ConsultRequest

log = logging.getLogger(__name__)

TTL_SECONDS = 300
"""How long a consultation stays cached (the design's 5 minutes)."""
KEY_VERSION = 2
"""Bumped when the cached payload's shape changes, so old entries are never read."""


class Generations(Protocol):
    """Where a learner's write generation comes from (``agent.kernel.stream.KernelStream``)."""

    async def generation(self, learner_id: str) -> int:
        """A number that changes on every write of ``learner_id``."""
        ...


def cache_key(learner_id: str, generation: int, request: ConsultRequest, *, prefix: str = "kag") -> str:
    """The cache key of ``request`` for ``learner_id`` at ``generation`` (module docstring)."""
    fields = {
        "v": KEY_VERSION,
        "generation": generation,
        "query": request.query,
        "context": request.context,
        "topics": sorted(request.topic_filters),
        "max_results": request.max_results,
        "include_insights": request.include_insights,
    }
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return f"{prefix}:kernel:{{{learner_id}}}:consult:{digest}"


class ConsultCache:
    """Get and put cached consultation payloads (JSON) in Redis."""

    def __init__(
        self, redis: Any, generations: Generations | None, *, ttl_seconds: int = TTL_SECONDS
    ) -> None:
        """Cache in ``redis``; keys follow ``generations`` (None: caching is off)."""
        self.redis = redis
        self.generations = generations
        self.ttl_seconds = ttl_seconds
        self.prefix: str = getattr(generations, "prefix", None) or "kag"
        """The key prefix: the generation source's own (``KernelStream.prefix``), so tests stay private."""

    @property
    def enabled(self) -> bool:
        """True when there is a generation source to key by."""
        return self.generations is not None

    async def key(self, learner_id: str, request: ConsultRequest) -> str | None:
        """The request's key at the learner's current generation (None: no caching now)."""
        if self.generations is None:
            return None
        try:
            generation = int(await self.generations.generation(learner_id))
        except (KAGError, RedisError, OSError) as exc:
            log.warning("consult cache off for this request: no write generation (%s)", exc)
            return None
        return cache_key(learner_id, generation, request, prefix=self.prefix)

    async def get(self, key: str | None) -> dict[str, Any] | None:
        """The cached payload under ``key``, or None."""
        if key is None:
            return None
        try:
            raw = await self.redis.get(key)
        except (KAGError, RedisError, OSError) as exc:
            log.warning("consult cache read failed, treating it as a miss: %s", exc)
            return None
        if not raw:
            return None
        try:
            payload = json.loads(raw)
        except ValueError:
            return None
        return payload if isinstance(payload, dict) else None

    async def put(self, key: str | None, payload: dict[str, Any]) -> bool:
        """Store ``payload`` under ``key`` for the TTL; False when not stored."""
        if key is None:
            return False
        try:
            await self.redis.set(key, json.dumps(payload, default=str), ex=self.ttl_seconds)
        except (KAGError, RedisError, OSError) as exc:
            log.warning("consult cache write failed: %s", exc)
            return False
        return True

    async def clear(self, learner_id: str) -> int:
        """Delete the learner's cached consultations (erasure); how many were deleted."""
        pattern = f"{self.prefix}:kernel:{{{learner_id}}}:consult:*"
        try:
            keys = [k async for k in self.redis.scan_iter(match=pattern, count=1000)]
            return int(await self.redis.delete(*keys)) if keys else 0
        except (KAGError, RedisError, OSError) as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc
