"""Core memory: the learner's pinned sections, one Redis hash per learner.

Key ``kag:core:{learner_id}``; field = section name, value = text. The TTL
(24 h by default) is refreshed on every read and write. Writes are Lua
scripts, so a limit check and its write are atomic without retries.
Going over a section's limit raises ``CoreMemoryLimitError``; nothing is
silently truncated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from agent.errors import CoreMemoryLimitError, InvalidInputError, StoreError, StoreUnavailableError
from agent.validation import validate_learner_id

DEFAULT_SECTIONS = ("user_profile", "current_goals")
_SECTION = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_SECTIONS = 12

# Shared Lua prologue. ARGV: section, limit, ttl, max_sections, default1, default2, ...
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
    local known = redis.call("HLEN", key)
    if redis.call("HEXISTS", key, ARGV[5]) == 0 then known = known + 1 end
    if redis.call("HEXISTS", key, ARGV[6]) == 0 then known = known + 1 end
    if known >= max_sections then return {"too_many", ""} end
  end
  redis.call("HSET", key, section, text)
  if ttl > 0 then redis.call("EXPIRE", key, ttl) end
  return {"ok", ""}
end
local current = redis.call("HGET", key, section) or ""
"""
# ARGV[7] = content
_APPEND = (
    _PROLOGUE
    + """
if current == "" then return commit(ARGV[7]) end
return commit(current .. "\\n" .. ARGV[7])
"""
)
# ARGV[7] = old, ARGV[8] = new
_REPLACE = (
    _PROLOGUE
    + """
local first, last = string.find(current, ARGV[7], 1, true)
if not first then return {"not_found", ""} end
local text = string.sub(current, 1, first - 1) .. ARGV[8] .. string.sub(current, last + 1)
return commit((string.gsub(text, "^%s+", ""):gsub("%s+$", "")))
"""
)


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


class CoreMemoryStore:
    """Read and edit core memory sections with per-section character limits."""

    def __init__(self, redis: aioredis.Redis, *, section_limit: int = 2000, ttl_seconds: int = 86400) -> None:
        """Use ``redis`` (decode_responses=True); ``ttl_seconds=0`` disables expiry."""
        self.redis = redis
        self.section_limit = section_limit
        self.ttl_seconds = ttl_seconds

    async def read(self, learner_id: str, *, ttl_seconds: int | None = None) -> dict[str, str]:
        """All sections (defaults included, possibly empty); refreshes the TTL.

        ``ttl_seconds`` overrides the store's default for this call (the run's knob).
        """
        key = core_key(validate_learner_id(learner_id))
        ttl = self.ttl_seconds if ttl_seconds is None else ttl_seconds
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hgetall(key)
                if ttl:
                    pipe.expire(key, ttl)
                stored, *_ = await pipe.execute()
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc
        return {**dict.fromkeys(DEFAULT_SECTIONS, ""), **stored}

    async def append(
        self, learner_id: str, section: str, content: str, *, limits: CoreLimits | None = None
    ) -> dict[str, str]:
        """Append ``content`` as a new line of ``section``; return all sections."""
        section = _check_section(section)
        if not isinstance(content, str) or not content.strip():
            raise InvalidInputError("content must be a non-empty string")
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
        if not isinstance(old_content, str) or not old_content:
            raise InvalidInputError("old_content must be the exact text to replace")
        if not isinstance(new_content, str):
            raise InvalidInputError("new_content must be a string (empty deletes old_content)")
        return await self._run(_REPLACE, learner_id, section, limits, old_content, new_content)

    async def clear(self, learner_id: str) -> None:
        """Delete a learner's core memory."""
        try:
            await self.redis.delete(core_key(validate_learner_id(learner_id)))
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc

    async def _run(
        self, script: str, learner_id: str, section: str, limits: CoreLimits | None, *args: str
    ) -> dict[str, str]:
        key = core_key(validate_learner_id(learner_id))
        limits = limits or CoreLimits(self.section_limit, self.ttl_seconds)
        argv = [
            section,
            limits.section_limit,
            limits.ttl_seconds,
            MAX_SECTIONS,
            *DEFAULT_SECTIONS,
            *args,
        ]
        try:
            status, value = await self.redis.eval(script, 1, key, *argv)
            stored: dict[str, str] = await self.redis.hgetall(key)
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
        return {**dict.fromkeys(DEFAULT_SECTIONS, ""), **stored}
