"""The consultation cache: 5 minutes in Redis, invalidated by the learner's writes.

Key: ``kag:kernel:{<learner>}:consult:<sha256>`` over the request. The entry stores the
learner's **write generation** (``KernelStream.generation``, moved by every write of that
learner) next to the payload; a lookup reads both in one ``MGET`` (one Cluster slot, by the
``{learner}`` hash tag), and an entry of another generation is a miss. A consultation racing
a write stores its payload under the generation it read before searching, which is already
stale, so it is never served after the write.

Without a generation source (no kernel stream) nothing is cached: a cache that writes
cannot invalidate would serve stale briefs. A Redis error on the cache is logged and
treated as a miss (or a skipped store): the consultation itself goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from redis.exceptions import RedisError

from agent.errors import KAGError, StoreUnavailableError
from agent.kernel.consult.models import ConsultRequest

log = logging.getLogger(__name__)

TTL_SECONDS = 300
"""How long a consultation stays cached (the design's 5 minutes)."""
KEY_VERSION = 3
"""Bumped when the cached entry's shape changes, so old entries are never read."""
GENERATION_KEY = "gen"
"""The name of the learner's generation key (``KernelStream.generation`` reads ``key(learner, "gen")``)."""


class Generations(Protocol):
    """Where a learner's write generation lives (``agent.kernel.stream.KernelStream``)."""

    prefix: str

    def key(self, learner_id: str, name: str) -> str:
        """The learner's kernel key ``name``; ``GENERATION_KEY`` holds the generation (an integer)."""
        ...


def cache_key(learner_id: str, request: ConsultRequest, *, prefix: str = "kag") -> str:
    """The cache key of ``request`` for ``learner_id`` (module docstring)."""
    fields = {
        "v": KEY_VERSION,
        "query": request.query,
        "context": request.context,
        "topics": sorted(request.topic_filters),
        "max_results": request.max_results,
        "include_insights": request.include_insights,
    }
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return f"{prefix}:kernel:{{{learner_id}}}:consult:{digest}"


@dataclass(frozen=True)
class Lookup:
    """What a cache lookup found: where to store a fresh payload, and the cached one if any."""

    slot: dict[str, Any] | None
    """``{"key", "generation"}``: the entry and the generation read (None: no caching now)."""
    payload: dict[str, Any] | None
    """The cached payload when the entry is of the current generation, else None."""


class ConsultCache:
    """Look up and store cached consultation payloads (JSON) in Redis."""

    def __init__(
        self, redis: Any, generations: Generations | None, *, ttl_seconds: int = TTL_SECONDS
    ) -> None:
        """Cache in ``redis``; entries follow ``generations`` (None: caching is off)."""
        self.redis = redis
        self.generations = generations
        self.ttl_seconds = ttl_seconds
        self.prefix: str = getattr(generations, "prefix", None) or "kag"
        """The key prefix: the generation source's own (``KernelStream.prefix``), so tests stay private."""

    @property
    def enabled(self) -> bool:
        """True when there is a generation source to key by."""
        return self.generations is not None

    async def lookup(self, learner_id: str, request: ConsultRequest) -> Lookup:
        """The learner's generation and the request's entry, in one round trip (module docstring)."""
        if self.generations is None:
            return Lookup(None, None)
        key = cache_key(learner_id, request, prefix=self.prefix)
        try:
            raw_generation, entry = await self.redis.mget(
                self.generations.key(learner_id, GENERATION_KEY), key
            )
            generation = int(raw_generation or 0)
        except (KAGError, RedisError, OSError, ValueError) as exc:
            log.warning("consult cache off for this request: no write generation (%s)", exc)
            return Lookup(None, None)
        slot = {"key": key, "generation": generation}
        stored, _, body = (entry or "").partition(":")
        if not body or stored != str(generation):
            return Lookup(slot, None)
        try:
            payload = json.loads(body)
        except ValueError:
            return Lookup(slot, None)
        return Lookup(slot, payload if isinstance(payload, dict) else None)

    async def put(self, slot: dict[str, Any] | None, payload: dict[str, Any]) -> bool:
        """Store ``payload`` in ``slot`` (from ``lookup``) for the TTL; False when not stored."""
        if slot is None:
            return False
        entry = f"{int(slot['generation'])}:{json.dumps(payload, default=str)}"
        try:
            await self.redis.set(slot["key"], entry, ex=self.ttl_seconds)
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
