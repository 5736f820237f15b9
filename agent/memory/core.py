"""Core memory: the learner's pinned sections, a Redis cache over a durable Neo4j copy.

Redis key ``kag:core:{learner_id}``; field = section name, value = text. The TTL
(24 h by default) is refreshed on every read and write. Writes are Lua
scripts, so a limit check and its write are atomic without retries.
Going over a section's limit raises ``CoreMemoryLimitError``; nothing is
silently truncated.

Neo4j is the source of truth when the store has a driver (``MemoryStores.wire``
gives it one): ``(:Learner)-[:HAS_CORE]->(:CoreSection {id, learner_id, name, text,
version})``. Every append/replace writes the new section text through right after
the Lua write; ``version`` is the Redis server time of that write, so a stale or
replayed write never overwrites a newer text. A cache miss (the key expired or was
evicted) loads the sections from Neo4j and re-fills Redis before reading or writing.
A learner with no durable sections gets the field ``EMPTY_MARK`` instead (never a
section name), so the next reads stay in Redis instead of asking Neo4j every turn; the
first section written (or replayed from the backlog) removes it.

Degraded mode (Neo4j down): a write whose cache is warm is applied in Redis and its
section text parked in the write backlog (op ``core.section``), replayed like the
archival and recall writes. A read whose cache is cold answers the default (empty)
sections; a write whose cache is cold is refused with ``StoreUnavailableError``, as
it would otherwise overwrite the durable section with a partial text.
A store built without a driver (``CoreMemoryStore(redis)``) is Redis-only: the
cache is all there is, as before.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

import neo4j
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from agent.clock import Clock, system_clock
from agent.errors import CoreMemoryLimitError, InvalidInputError, StoreError, StoreUnavailableError
from agent.graphdb.store import Neo4jStore, fetch
from agent.memory.backlog import WriteBacklog
from agent.memory.queries import DELETE_CORE_SECTIONS, READ_CORE_SECTIONS, WRITE_CORE_SECTION
from agent.models.embeddings import EmbeddingProvider
from agent.validation import validate_learner_id, validate_text

log = logging.getLogger(__name__)
MAX_TEXT_BYTES = 64 * 1024
"""Largest text one core memory edit may carry (sections have their own character limit)."""
OP_SECTION = "core.section"

DEFAULT_SECTIONS = ("user_profile", "current_goals")
EMPTY_MARK = "~empty"
"""Cache field meaning "Neo4j holds no section": not a valid section name, never returned."""
_SECTION = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_SECTIONS = 12

# Shared Lua prologue. ARGV: section, limit, ttl, max_sections, default1, default2, mark, ...
# Length is counted in UTF-8 characters (bytes that are not continuation bytes).
_PROLOGUE = """
local key, section = KEYS[1], ARGV[1]
local limit, ttl, max_sections = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local function chars(s)
  local n = 0
  for i = 1, #s do local b = s:byte(i); if b < 128 or b >= 192 then n = n + 1 end end
  return n
end
local function commit(text)
  if chars(text) > limit then return {"too_long", tostring(chars(text))} end
  if redis.call("HEXISTS", key, section) == 0 and section ~= ARGV[5] and section ~= ARGV[6] then
    local known = redis.call("HLEN", key) - redis.call("HEXISTS", key, ARGV[7])
    if redis.call("HEXISTS", key, ARGV[5]) == 0 then known = known + 1 end
    if redis.call("HEXISTS", key, ARGV[6]) == 0 then known = known + 1 end
    if known >= max_sections then return {"too_many", ""} end
  end
  redis.call("HSET", key, section, text)
  redis.call("HDEL", key, ARGV[7])
  if ttl > 0 then redis.call("EXPIRE", key, ttl) end
  local now = redis.call("TIME")
  return {"ok", now[1] .. string.format("%06d", tonumber(now[2]))}
end
local current = redis.call("HGET", key, section) or ""
"""
# ARGV[8] = content
_APPEND = (
    _PROLOGUE
    + """
if current == "" then return commit(ARGV[8]) end
return commit(current .. "\\n" .. ARGV[8])
"""
)
# ARGV[8] = old, ARGV[9] = new
_REPLACE = (
    _PROLOGUE
    + """
local first, last = string.find(current, ARGV[8], 1, true)
if not first then return {"not_found", ""} end
local text = string.sub(current, 1, first - 1) .. ARGV[9] .. string.sub(current, last + 1)
return commit((string.gsub(text, "^%s+", ""):gsub("%s+$", "")))
"""
)


# Re-fill a cold cache from Neo4j (or put EMPTY_MARK); a write that raced in first wins.
# ARGV: ttl, name, text, ...
_FILL = """
if redis.call("EXISTS", KEYS[1]) == 0 and #ARGV > 1 then
  redis.call("HSET", KEYS[1], unpack(ARGV, 2))
end
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call("EXPIRE", KEYS[1], ttl) end
return redis.call("HGETALL", KEYS[1])
"""


def core_key(learner_id: str) -> str:
    """The Redis key of a learner's core memory hash."""
    return f"kag:core:{learner_id}"


def _check_section(section: object) -> str:
    if not isinstance(section, str) or not _SECTION.match(section):
        raise InvalidInputError(
            f"section {section!r} must be a lowercase identifier such as 'user_profile' "
            "(letters, digits, '_'; at most 40 characters)"
        )
    return section


@dataclass(frozen=True)
class CoreLimits:
    """The run's core memory rules (``Context.core_section_limit``, ``core_ttl_seconds``)."""

    section_limit: int = 2000
    """Characters allowed per section."""
    ttl_seconds: int = 86400
    """Expiry of the learner's core memory key, refreshed on use; 0 disables it."""


class CoreSectionGraph(Neo4jStore):
    """The durable copy of core memory in Neo4j (one ``CoreSection`` per learner and section)."""

    backlog_ops = frozenset({OP_SECTION})

    async def load(self, learner_id: str) -> dict[str, str]:
        """The learner's stored sections (only those ever written)."""
        rows = await self.read(lambda tx: fetch(tx, READ_CORE_SECTIONS, learner_id=learner_id))
        return {row["name"]: row["text"] or "" for row in rows}

    def __init__(self, *args: Any, redis: aioredis.Redis | None = None, **kwargs: Any) -> None:
        """A ``Neo4jStore``; ``redis`` holds the cache whose ``EMPTY_MARK`` a replayed write removes."""
        super().__init__(*args, **kwargs)
        self.redis = redis

    async def save(self, learner_id: str, section: str, text: str, version: int) -> bool:
        """Write ``text`` through, or park it when Neo4j is down; False when parked."""
        payload = {"learner_id": learner_id, "name": section, "text": text, "version": version}
        return await self.write_or_park(learner_id, OP_SECTION, payload, self._write) is not None

    async def _write(self, payload: dict[str, Any]) -> bool:
        params = {
            "learner_id": validate_learner_id(payload["learner_id"]),
            "name": _check_section(payload["name"]),
            "text": str(payload["text"]),
            "version": int(payload["version"]),
            "id": f"{payload['learner_id']}/{payload['name']}",
            "now": self.now_iso(),
        }
        await self.write(lambda tx: fetch(tx, WRITE_CORE_SECTION, **params))
        return True

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Replay one parked section write (versioned, so replays are idempotent)."""
        if op != OP_SECTION:
            raise InvalidInputError(f"core memory store cannot apply {op!r}")
        await self._write(payload)
        if self.redis is not None:  # the cache may have noted "no sections" while this was parked
            await self.redis.hdel(core_key(validate_learner_id(payload["learner_id"])), EMPTY_MARK)


class CoreMemoryStore:
    """Read and edit core memory sections with per-section character limits."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        section_limit: int = 2000,
        ttl_seconds: int = 86400,
        driver: neo4j.AsyncDriver | None = None,
        embeddings: EmbeddingProvider | None = None,
        database: str = "neo4j",
        backlog: WriteBacklog | None = None,
        clock: Clock = system_clock,
    ) -> None:
        """Use ``redis`` (decode_responses=True); ``ttl_seconds=0`` disables expiry.

        With ``driver`` (and the ``embeddings`` the schema is named after), Neo4j holds
        the durable copy and Redis is its cache; without, the store is Redis-only.
        """
        self.redis = redis
        self.section_limit = section_limit
        self.ttl_seconds = ttl_seconds
        self.graph: CoreSectionGraph | None = None
        if driver is not None:
            if embeddings is None:
                raise ValueError("a durable core memory store needs the embeddings its schema is named after")
            self.graph = CoreSectionGraph(
                driver, embeddings, database=database, backlog=backlog, clock=clock, redis=redis
            )

    async def read(self, learner_id: str, *, ttl_seconds: int | None = None) -> dict[str, str]:
        """All sections (defaults included, possibly empty); refreshes the TTL.

        ``ttl_seconds`` overrides the store's default for this call (the run's knob).
        A cache miss loads the sections from Neo4j and re-fills Redis.
        """
        learner_id = validate_learner_id(learner_id)
        key = core_key(learner_id)
        ttl = self.ttl_seconds if ttl_seconds is None else ttl_seconds
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(key)
                if ttl:
                    pipe.expire(key, ttl)
                stored, *_ = await pipe.execute()
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc
        if not stored and self.graph is not None:
            stored = await self._fill(learner_id, ttl, strict=False)
        stored.pop(EMPTY_MARK, None)
        return {**dict.fromkeys(DEFAULT_SECTIONS, ""), **stored}

    async def _fill(self, learner_id: str, ttl: int, *, strict: bool) -> dict[str, str]:
        """Re-fill a cold cache from Neo4j; ``strict`` raises when Neo4j is down."""
        assert self.graph is not None
        try:
            durable = await self.graph.load(learner_id)
        except StoreUnavailableError as exc:
            if strict:
                raise StoreUnavailableError(
                    "Neo4j", f"core memory cache is cold and its durable copy unreachable: {exc}"
                ) from exc
            log.error("core memory cache is cold and Neo4j is down; answering empty sections: %s", exc)
            return {}
        argv: list[str | int] = [ttl]
        for name, text in (durable or {EMPTY_MARK: "1"}).items():
            argv += [name, text]
        try:
            flat = await self.redis.eval(_FILL, 1, core_key(learner_id), *argv)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc
        except ResponseError as exc:
            raise StoreError(f"core memory fill script failed: {exc}") from exc
        return dict(zip(flat[::2], flat[1::2], strict=True))

    async def append(
        self, learner_id: str, section: str, content: str, *, limits: CoreLimits | None = None
    ) -> dict[str, str]:
        """Append ``content`` as a new line of ``section``; return all sections."""
        section = _check_section(section)
        content = validate_text(content, "content", MAX_TEXT_BYTES)
        return await self._run(_APPEND, learner_id, section, limits, content.strip())

    async def replace(
        self,
        learner_id: str,
        section: str,
        old_content: str,
        new_content: str,
        *,
        limits: CoreLimits | None = None,
    ) -> dict[str, str]:
        """Replace the exact text ``old_content`` in ``section``; return all sections."""
        section = _check_section(section)
        old_content = validate_text(old_content, "old_content", MAX_TEXT_BYTES)
        new_content = validate_text(new_content, "new_content", MAX_TEXT_BYTES, allow_blank=True)
        return await self._run(_REPLACE, learner_id, section, limits, old_content, new_content)

    async def clear(self, learner_id: str) -> None:
        """Delete a learner's core memory (the Redis cache, and the Neo4j copy when wired)."""
        learner_id = validate_learner_id(learner_id)
        if self.graph is not None:
            await self.graph.write(lambda tx: fetch(tx, DELETE_CORE_SECTIONS, learner_id=learner_id))
        try:
            await self.redis.delete(core_key(learner_id))
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc

    async def _run(
        self, script: str, learner_id: str, section: str, limits: CoreLimits | None, *args: str
    ) -> dict[str, str]:
        learner_id = validate_learner_id(learner_id)
        key = core_key(learner_id)
        limits = limits or CoreLimits(self.section_limit, self.ttl_seconds)
        if self.graph is not None:
            try:
                warm = bool(await self.redis.exists(key))
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                raise StoreUnavailableError("Redis", str(exc)) from exc
            if not warm:
                await self._fill(learner_id, limits.ttl_seconds, strict=True)
        argv = [
            section,
            limits.section_limit,
            limits.ttl_seconds,
            MAX_SECTIONS,
            *DEFAULT_SECTIONS,
            EMPTY_MARK,
            *args,
        ]
        try:
            status, value = await self.redis.eval(script, 1, key, *argv)
            stored: dict[str, str] = await self.redis.hgetall(key)
            stored.pop(EMPTY_MARK, None)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc
        except ResponseError as exc:
            raise StoreError(f"core memory script failed: {exc}") from exc
        if status == "too_long":
            raise CoreMemoryLimitError(
                f"section {section!r} would hold {value} characters, over its limit of "
                f"{limits.section_limit}. Use core_memory_replace to condense it, or "
                "archival_memory_insert to move details to archival memory."
            )
        if status == "too_many":
            raise InvalidInputError(
                f"core memory already has {MAX_SECTIONS} sections; reuse one instead of adding {section!r}"
            )
        if status == "not_found":
            raise InvalidInputError(
                f"old_content not found in section {section!r}; read core memory and quote the text exactly"
            )
        # Write through; ``value`` is the Redis time of the write (its version).
        if self.graph is not None and not await self.graph.save(
            learner_id, section, stored.get(section, ""), int(value)
        ):
            log.warning("Neo4j down: core memory section %r parked in the write backlog", section)
        return {**dict.fromkeys(DEFAULT_SECTIONS, ""), **stored}
