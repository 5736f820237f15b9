"""Lua scripts for the steps that must be one round trip or atomic (no I/O here).

The scripts rebuild key names from ``P`` (prefix), ``T`` and ``N`` (encoded thread
and namespace) exactly as ``RedisCheckpointBase``'s key builders do; see the layout
in ``agent.checkpoint.base``. Keys are derived inside the scripts (the checkpoint id
of "latest" is only known server-side), which plain Redis allows; Redis Cluster
would need hash tags.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LuaScript:
    """A script and its SHA1, computed locally for EVALSHA."""

    name: str
    source: str
    sha: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha", hashlib.sha1(self.source.encode()).hexdigest())


# ARGV: P, T, N, ttl (0 = no refresh), mode, then
#   mode "latest": nothing; "ids": cid...; "page"/"meta": before ("" = newest), count.
# Returns {n_scanned, last_scanned_cid, rows, blobs}:
#   rows: per checkpoint one msgpack string [row, [write, ...]] where ``row`` is the
#         hash's pre-packed ``row`` field, copied as is ("meta" mode: ``row`` only);
#   blobs: one msgpack string [blob_field, blob, ...] with every blob the rows
#          reference, each once, read with one HMGET per 1000 fields.
# Framing is msgpack bin32/array32 written with struct, so the client decodes a row
# with one C call instead of parsing many RESP elements. Index entries whose
# checkpoint hash expired (TTL) are dropped.
FETCH = LuaScript(
    "fetch",
    """
local P, T, N, ttl, mode = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local tb = P .. ':t:' .. T
local nb = tb .. ':n:' .. N
local idx, blobs = nb .. ':idx', nb .. ':blobs'
local pack = struct.pack
local function packed(items)
  local out = {pack('>BI4', 0xdd, #items)}
  for _, s in ipairs(items) do
    out[#out + 1] = pack('>BI4', 0xc6, #s)
    out[#out + 1] = s
  end
  return table.concat(out)
end
local ids
if mode == 'latest' then
  ids = redis.call('ZREVRANGE', idx, 0, 0)
elseif mode == 'ids' then
  ids = {}
  for i = 6, #ARGV do ids[#ids + 1] = ARGV[i] end
else
  local hi = '+'
  if ARGV[6] ~= '' then hi = '(' .. ARGV[6] end
  ids = redis.call('ZREVRANGEBYLEX', idx, hi, '-', 'LIMIT', 0, tonumber(ARGV[7]))
end
local rows, need, seen = {}, {}, {}
for _, cid in ipairs(ids) do
  local ck = nb .. ':c:' .. cid
  local row
  if mode == 'meta' then
    row = redis.call('HGET', ck, 'row')
    if row then rows[#rows + 1] = row end
  else
    local flat = redis.call('HGETALL', ck)
    local writes, refs = {}, ''
    for i = 1, #flat, 2 do
      local f = flat[i]
      if f == 'row' then row = flat[i + 1]
      elseif f == 'blobs' then refs = flat[i + 1]
      elseif string.sub(f, 1, 2) == 'w:' then writes[#writes + 1] = flat[i + 1] end
    end
    if row then
      for b in string.gmatch(refs, '%S+') do
        if not seen[b] then seen[b] = true; need[#need + 1] = b end
      end
      rows[#rows + 1] = pack('>B', 0x92) .. row .. packed(writes)
      if ttl > 0 then redis.call('EXPIRE', ck, ttl) end
    end
  end
  if not row and mode ~= 'ids' then redis.call('ZREM', idx, cid) end
end
local found = {}
for j = 1, #need, 1000 do
  local part = {unpack(need, j, math.min(j + 999, #need))}
  local vals = redis.call('HMGET', blobs, unpack(part))
  for i, f in ipairs(part) do
    if vals[i] then found[#found + 1] = f; found[#found + 1] = vals[i] end
  end
end
if ttl > 0 and #rows > 0 then
  for _, k in ipairs({idx, blobs, tb .. ':ns'}) do redis.call('EXPIRE', k, ttl) end
end
return {#ids, ids[#ids] or '', rows, packed(found)}
""",
)

# ARGV: P, strategy ("delete" | "keep_latest"), T...
# "delete" removes every key of each thread; "keep_latest" keeps the newest checkpoint
# per namespace, its writes, and only the blobs it references.
DELETE_THREADS = LuaScript(
    "delete_threads",
    """
local P, keep = ARGV[1], ARGV[2] == 'keep_latest'
local function drop(nb, T, N, cid)
  local run = redis.call('HGET', nb .. ':c:' .. cid, 'run')
  if run and run ~= '' then
    redis.call('SREM', P .. ':run:' .. run, T .. ':' .. N .. ':' .. cid)
  end
  redis.call('DEL', nb .. ':c:' .. cid)
end
for i = 3, #ARGV do
  local T = ARGV[i]
  local tb = P .. ':t:' .. T
  for _, N in ipairs(redis.call('SMEMBERS', tb .. ':ns')) do
    local nb = tb .. ':n:' .. N
    local idx = nb .. ':idx'
    if keep then
      for _, cid in ipairs(redis.call('ZRANGE', idx, 0, -2)) do
        drop(nb, T, N, cid)
        redis.call('ZREM', idx, cid)
      end
      local live = {}
      local last = redis.call('ZRANGE', idx, -1, -1)[1]
      if last then
        local b = redis.call('HGET', nb .. ':c:' .. last, 'blobs') or ''
        for f in string.gmatch(b, '%S+') do live[f] = true end
      end
      local dead = {}
      for _, f in ipairs(redis.call('HKEYS', nb .. ':blobs')) do
        if not live[f] then dead[#dead + 1] = f end
      end
      for j = 1, #dead, 500 do
        redis.call('HDEL', nb .. ':blobs', unpack(dead, j, math.min(j + 499, #dead)))
      end
    else
      for _, cid in ipairs(redis.call('ZRANGE', idx, 0, -1)) do drop(nb, T, N, cid) end
      redis.call('DEL', idx, nb .. ':blobs')
    end
  end
  if not keep then
    redis.call('DEL', tb .. ':ns')
    redis.call('SREM', P .. ':threads', T)
  end
end
return 1
""",
)

# ARGV: P, R... (encoded run ids). Deletes each run's checkpoints and their writes;
# a namespace left empty loses its blobs, a thread left empty leaves the registry.
DELETE_RUNS = LuaScript(
    "delete_runs",
    """
local P = ARGV[1]
for i = 2, #ARGV do
  local rk = P .. ':run:' .. ARGV[i]
  for _, m in ipairs(redis.call('SMEMBERS', rk)) do
    local T, N, cid = string.match(m, '^([^:]*):([^:]*):(.*)$')
    if T then
      local tb = P .. ':t:' .. T
      local nb = tb .. ':n:' .. N
      redis.call('DEL', nb .. ':c:' .. cid)
      redis.call('ZREM', nb .. ':idx', cid)
      if redis.call('ZCARD', nb .. ':idx') == 0 then
        redis.call('DEL', nb .. ':blobs')
        redis.call('SREM', tb .. ':ns', N)
        if redis.call('SCARD', tb .. ':ns') == 0 then redis.call('SREM', P .. ':threads', T) end
      end
    end
  end
  redis.call('DEL', rk)
end
return 1
""",
)

ALL_SCRIPTS = (FETCH, DELETE_THREADS, DELETE_RUNS)
