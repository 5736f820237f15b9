"""Lua scripts for the steps that must be one round trip or atomic (no I/O here).

The scripts rebuild key names from ``P`` (prefix), ``T`` and ``N`` (encoded thread
and namespace) exactly as ``RedisCheckpointBase``'s key builders do; see the layout
in ``agent.checkpoint.base``. Keys are derived inside the scripts (the checkpoint id
of "latest" is only known server-side), which plain Redis allows; Redis Cluster
would need hash tags. ``redis.call`` from Lua costs microseconds, so the read path
uses a constant number of calls per page (MGET/HMGET), never one per checkpoint.
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


# Shared by the scripts: the header line of a checkpoint row is "r=RUN BLOB BLOB...".
_HEADER = """
local function header(row) return string.match(row, '^[^\\n]*') end
local function run_of(row) return string.match(row, '^r=(%S*)') end
"""

# ARGV: P, T, N, ttl (0 = no refresh), mode, with_blobs ("1"/"0"), then
#   "latest": nothing; "ids": cid...; "page"/"meta": before ("" = newest), count.
# Returns {n_scanned, last_scanned_cid, rows, writes, blobs}: the rows found (strings
# ``c:CID``), their packed writes (``wp:CID`` or ""; none in "meta" mode), and, with
# with_blobs, a flat [field, blob, ...] of every blob the rows reference, each once
# (pages skip this: parsing headers in Lua costs more than a second round trip).
# Index entries whose row expired (TTL) are dropped.
FETCH = LuaScript(
    "fetch",
    _HEADER
    + """
local P, T, N, ttl, mode = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local with_blobs = ARGV[6] == '1'
local tb = P .. ':t:' .. T
local nb = tb .. ':n:' .. N
local idx, blobs = nb .. ':idx', nb .. ':blobs'
local ids
if mode == 'latest' then
  ids = redis.call('ZREVRANGE', idx, 0, 0)
elseif mode == 'ids' then
  ids = {}
  for i = 7, #ARGV do ids[#ids + 1] = ARGV[i] end
else
  local hi = '+'
  if ARGV[7] ~= '' then hi = '(' .. ARGV[7] end
  ids = redis.call('ZREVRANGEBYLEX', idx, hi, '-', 'LIMIT', 0, tonumber(ARGV[8]))
end
if #ids == 0 then return {0, '', {}, {}, {}} end
local ckeys, wkeys = {}, {}
for i, cid in ipairs(ids) do
  ckeys[i] = nb .. ':c:' .. cid
  wkeys[i] = nb .. ':wp:' .. cid
end
local got = redis.call('MGET', unpack(ckeys))
local gotw = {}
if mode ~= 'meta' then gotw = redis.call('MGET', unpack(wkeys)) end
local rows, writes, need, seen = {}, {}, {}, {}
for i, cid in ipairs(ids) do
  local row = got[i]
  if row then
    rows[#rows + 1] = row
    if mode ~= 'meta' then
      writes[#writes + 1] = gotw[i] or ''
      if with_blobs then
        for f in string.gmatch(header(row), '%S+') do
          if not seen[f] and string.sub(f, 1, 2) ~= 'r=' then
            seen[f] = true
            need[#need + 1] = f
          end
        end
      end
      if ttl > 0 then
        redis.call('EXPIRE', ckeys[i], ttl)
        redis.call('EXPIRE', nb .. ':w:' .. cid, ttl)
        redis.call('EXPIRE', wkeys[i], ttl)
      end
    end
  elseif mode ~= 'ids' then
    redis.call('ZREM', idx, cid)
  end
end
local found = {}
for j = 1, #need, 1000 do
  local part = {unpack(need, j, math.min(j + 999, #need))}
  local vals = redis.call('HMGET', blobs, unpack(part))
  for i, f in ipairs(part) do
    if vals[i] then
      found[#found + 1] = f
      found[#found + 1] = vals[i]
    end
  end
end
if ttl > 0 and #rows > 0 then
  for _, k in ipairs({idx, blobs, tb .. ':ns'}) do redis.call('EXPIRE', k, ttl) end
end
return {#ids, ids[#ids], rows, writes, found}
""",
)

# KEYS: writes hash, packed-writes string. ARGV: ttl (0 = none), then (mode, field,
# value) triples; mode "nx" keeps an existing value (regular writes), "set" replaces
# it (ERROR/INTERRUPT/...). The string is rebuilt as one msgpack array of every
# record, so readers fetch the writes of a page of checkpoints with one MGET.
PUT_WRITES = LuaScript(
    "put_writes",
    """
for i = 2, #ARGV, 3 do
  if ARGV[i] == 'nx' then
    redis.call('HSETNX', KEYS[1], ARGV[i + 1], ARGV[i + 2])
  else
    redis.call('HSET', KEYS[1], ARGV[i + 1], ARGV[i + 2])
  end
end
local vals = redis.call('HVALS', KEYS[1])
-- each value is already a msgpack array: an array32 header makes the list
redis.call('SET', KEYS[2], struct.pack('>BI4', 0xdd, #vals) .. table.concat(vals))
local ttl = tonumber(ARGV[1])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return #vals
""",
)

# ARGV: P, strategy ("delete" | "keep_latest"), T...
# "delete" removes every key of each thread; "keep_latest" keeps the newest checkpoint
# per namespace, its writes, and only the blobs it references.
DELETE_THREADS = LuaScript(
    "delete_threads",
    _HEADER
    + """
local P, keep = ARGV[1], ARGV[2] == 'keep_latest'
local function drop(nb, T, N, cid)
  local row = redis.call('GET', nb .. ':c:' .. cid)
  local run = row and run_of(row)
  if run and run ~= '' then
    redis.call('SREM', P .. ':run:' .. run, T .. ':' .. N .. ':' .. cid)
  end
  redis.call('DEL', nb .. ':c:' .. cid, nb .. ':w:' .. cid, nb .. ':wp:' .. cid)
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
      local row = last and redis.call('GET', nb .. ':c:' .. last)
      if row then
        for f in string.gmatch(header(row), '%S+') do live[f] = true end
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
    redis.call('DEL', tb .. ':ns', tb .. ':owner')
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
      redis.call('DEL', nb .. ':c:' .. cid, nb .. ':w:' .. cid, nb .. ':wp:' .. cid)
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

ALL_SCRIPTS = (FETCH, PUT_WRITES, DELETE_THREADS, DELETE_RUNS)
