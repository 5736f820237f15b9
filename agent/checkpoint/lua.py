"""Lua scripts for the steps that must be one round trip or atomic (no I/O here).

Every script gets all its keys through ``KEYS`` and derives none, so it runs on Redis
Cluster: the keys of one call are always one thread's (one hash slot; see the layout in
``agent.checkpoint.base``). A namespace contributes five keys in the order of
``RedisCheckpointBase.ns_keys``: index, rows, packed writes, write fields, blobs.
Checkpoints are hash fields, so "latest" is resolved server-side without naming a key
the caller did not pass. Scripts never touch the prefix-wide sets (``threads``,
``run:R``): deletes return the run members they removed and the driver updates those
sets with separate commands. ``redis.call`` from Lua costs microseconds, so the read
path uses a constant number of calls per page (HMGET), never one per checkpoint.
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


# Shared: the header line of a checkpoint row is "r=RUN BLOB BLOB..."; big lists are
# passed to variadic commands in chunks (Lua's unpack() has a stack limit).
_COMMON = """
local function header(row) return string.match(row, '^[^\\n]*') end
local function run_of(row) return string.match(row, '^r=(%S*)') end
local function chunked(cmd, key, list)
  local out = {}
  for j = 1, #list, 500 do
    local got = redis.call(cmd, key, unpack(list, j, math.min(j + 499, #list)))
    if type(got) == 'table' then
      for _, v in ipairs(got) do out[#out + 1] = v end
    end
  end
  return out
end
"""

# Both writes claim the thread first (``agent.checkpoint.owners``): principal "" checks
# nothing; an unowned thread becomes the principal's; another principal's thread is
# refused with a -1 reply before anything is written. One script, so the claim and the
# write are one round trip and nothing can slip in between.
_CLAIM = """
local function claimed(owner_key, principal)
  if principal == '' then return true end
  local owner = redis.call('GET', owner_key)
  if not owner then
    redis.call('SET', owner_key, principal)
    return true
  end
  return owner == principal
end
"""

# KEYS: index, rows, packed writes, write fields, blobs, namespace set.
# ARGV: ttl (0 = no refresh), mode, with_blobs ("1"/"0"), then
#   "latest": nothing; "ids": cid...; "page"/"meta": before ("" = newest), count.
# Returns {n_scanned, last_scanned_cid, rows, writes, blobs}: the rows found, their
# packed writes ("" if none; none at all in "meta" mode), and, with with_blobs, a flat
# [field, blob, ...] of every blob the rows reference, each once (pages skip this:
# parsing headers in Lua costs more than a second round trip). Index entries without
# a row are dropped.
FETCH = LuaScript(
    "fetch",
    _COMMON
    + """
local idx, rows_h, wp_h, blobs = KEYS[1], KEYS[2], KEYS[3], KEYS[5]
local ttl, mode = tonumber(ARGV[1]), ARGV[2]
local with_blobs = ARGV[3] == '1'
local ids
if mode == 'latest' then
  ids = redis.call('ZREVRANGE', idx, 0, 0)
elseif mode == 'ids' then
  ids = {}
  for i = 4, #ARGV do ids[#ids + 1] = ARGV[i] end
else
  local hi = '+'
  if ARGV[4] ~= '' then hi = '(' .. ARGV[4] end
  ids = redis.call('ZREVRANGEBYLEX', idx, hi, '-', 'LIMIT', 0, tonumber(ARGV[5]))
end
if #ids == 0 then return {0, '', {}, {}, {}} end
local got = redis.call('HMGET', rows_h, unpack(ids))
local gotw = {}
if mode ~= 'meta' then gotw = redis.call('HMGET', wp_h, unpack(ids)) end
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
    end
  elseif mode ~= 'ids' then
    redis.call('ZREM', idx, cid)
  end
end
local found = {}
for j = 1, #need, 500 do
  local part = {unpack(need, j, math.min(j + 499, #need))}
  local vals = redis.call('HMGET', blobs, unpack(part))
  for i, f in ipairs(part) do
    if vals[i] then
      found[#found + 1] = f
      found[#found + 1] = vals[i]
    end
  end
end
if ttl > 0 and #rows > 0 then
  for _, k in ipairs(KEYS) do redis.call('EXPIRE', k, ttl) end
end
return {#ids, ids[#ids], rows, writes, found}
""",
)

# KEYS: owner, blobs, rows, index, namespace set. ARGV: principal, ttl (0 = none), cid,
# row, encoded namespace, then (blob field, value) pairs. Returns the namespace's
# checkpoint count after the write (the driver trims past ``keep``), or -1 (nothing
# written) when another principal owns the thread. The prefix-wide ``threads`` and
# ``run:R`` sets are the driver's (the same pipeline, before this call).
PUT = LuaScript(
    "put",
    _CLAIM
    + """
local owner, blobs, rows, idx, nss = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local ttl, cid = tonumber(ARGV[2]), ARGV[3]
if not claimed(owner, ARGV[1]) then return -1 end
for j = 6, #ARGV, 1000 do
  redis.call('HSET', blobs, unpack(ARGV, j, math.min(j + 999, #ARGV)))
end
redis.call('HSET', rows, cid, ARGV[4])
redis.call('ZADD', idx, 0, cid)
redis.call('SADD', nss, ARGV[5])
if ttl > 0 then
  for _, k in ipairs({rows, idx, blobs, nss}) do redis.call('EXPIRE', k, ttl) end
end
return redis.call('ZCARD', idx)
""",
)

# KEYS: packed writes, write fields, owner. ARGV: principal (see PUT), ttl (0 = none),
# cid, then (mode, field, record) triples; mode "nx" keeps an existing record (regular
# writes), "set" replaces it (ERROR/INTERRUPT/...). Returns the record count, or -1.
# The packed value is one msgpack array of every record (array32 header + records), so
# readers fetch a page's writes with one HMGET; the fields value ``field/len ...`` says
# which record is which.
PUT_WRITES = LuaScript(
    "put_writes",
    _CLAIM
    + """
local wp, wf = KEYS[1], KEYS[2]
local ttl, cid = tonumber(ARGV[2]), ARGV[3]
if not claimed(KEYS[3], ARGV[1]) then return -1 end
local order, recs = {}, {}
local index = redis.call('HGET', wf, cid)
if index then
  local packed = redis.call('HGET', wp, cid) or ''
  local pos = 6
  for f, n in string.gmatch(index, '(%S+)/(%d+)') do
    n = tonumber(n)
    order[#order + 1] = f
    recs[f] = string.sub(packed, pos, pos + n - 1)
    pos = pos + n
  end
end
for i = 4, #ARGV, 3 do
  local f = ARGV[i + 1]
  if recs[f] == nil then
    order[#order + 1] = f
    recs[f] = ARGV[i + 2]
  elseif ARGV[i] ~= 'nx' then
    recs[f] = ARGV[i + 2]
  end
end
local parts, desc = {}, {}
for i, f in ipairs(order) do
  parts[i] = recs[f]
  desc[i] = f .. '/' .. #recs[f]
end
-- each record is already a msgpack array: an array32 header makes the list
redis.call('HSET', wp, cid, struct.pack('>BI4', 0xdd, #order) .. table.concat(parts))
redis.call('HSET', wf, cid, table.concat(desc, ' '))
if ttl > 0 then
  redis.call('EXPIRE', wp, ttl)
  redis.call('EXPIRE', wf, ttl)
end
return #order
""",
)

# KEYS: namespace set, owner, then five keys per namespace. ARGV: mode ("delete" |
# "keep"), how many to keep, T, guard, then the encoded namespaces in KEYS order.
# "delete" removes every key of the thread; "keep" keeps the newest K checkpoints per
# namespace (ids are time-ordered), their writes, and only the blobs they reference.
# The guard makes erasure's ownership check and delete one step: "" checks nothing,
# "=L" needs owner L, "~L" owner L or none (agent.checkpoint.erase).
# Returns {2, {}} when the guard refuses (nothing changed), {0, namespaces} when the
# thread has a namespace the caller did not pass (it re-reads and retries), else
# {1, [run, member, ...]}: the run-set members to remove.
DELETE_THREAD = LuaScript(
    "delete_thread",
    _COMMON
    + """
local keep, K, T, guard = ARGV[1] == 'keep', tonumber(ARGV[2]), ARGV[3], ARGV[4]
if guard ~= '' then
  local owner = redis.call('GET', KEYS[2])
  if owner then
    if owner ~= string.sub(guard, 2) then return {2, {}} end
  elseif string.sub(guard, 1, 1) == '=' then
    return {2, {}}
  end
end
local known = {}
for i = 5, #ARGV do known[ARGV[i]] = true end
local nss = redis.call('SMEMBERS', KEYS[1])
for _, N in ipairs(nss) do
  if not known[N] then return {0, nss} end
end
local runs = {}
local function forget(N, ids, rows)
  for i, cid in ipairs(ids) do
    local run = rows[i] and run_of(rows[i])
    if run and run ~= '' then
      runs[#runs + 1] = run
      runs[#runs + 1] = T .. ':' .. N .. ':' .. cid
    end
  end
end
for g = 5, #ARGV do
  local N, b = ARGV[g], 2 + (g - 5) * 5
  local idx, rows_h, wp, wf, blobs = KEYS[b + 1], KEYS[b + 2], KEYS[b + 3], KEYS[b + 4], KEYS[b + 5]
  if keep then
    local ids = redis.call('ZRANGE', idx, 0, -(K + 1))
    if #ids > 0 then
      forget(N, ids, chunked('HMGET', rows_h, ids))
      for _, k in ipairs({rows_h, wp, wf}) do chunked('HDEL', k, ids) end
      chunked('ZREM', idx, ids)
    end
    local live = {}
    local kept = redis.call('ZRANGE', idx, 0, -1)
    if #kept > 0 then
      for _, row in ipairs(chunked('HMGET', rows_h, kept)) do
        if row then
          for f in string.gmatch(header(row), '%S+') do live[f] = true end
        end
      end
    end
    local dead = {}
    for _, f in ipairs(redis.call('HKEYS', blobs)) do
      if not live[f] then dead[#dead + 1] = f end
    end
    chunked('HDEL', blobs, dead)
  else
    local ids = redis.call('ZRANGE', idx, 0, -1)
    forget(N, ids, chunked('HMGET', rows_h, ids))
    redis.call('DEL', idx, rows_h, wp, wf, blobs)
  end
end
if not keep then redis.call('DEL', KEYS[1], KEYS[2]) end
return {1, runs}
""",
)

# KEYS: namespace set, then five keys per namespace. ARGV: per namespace, in KEYS
# order: N, count, then count checkpoint ids. Deletes those checkpoints and their
# writes; a namespace left empty loses its blobs and leaves the set. Returns how many
# namespaces the thread still has (0: the caller drops it from ``threads``).
DELETE_CHECKPOINTS = LuaScript(
    "delete_checkpoints",
    _COMMON
    + """
local a, g = 1, 0
while a <= #ARGV do
  local N, n = ARGV[a], tonumber(ARGV[a + 1])
  local b = 1 + g * 5
  local idx, rows_h, wp, wf, blobs = KEYS[b + 1], KEYS[b + 2], KEYS[b + 3], KEYS[b + 4], KEYS[b + 5]
  local ids = {}
  for i = a + 2, a + 1 + n do ids[#ids + 1] = ARGV[i] end
  for _, k in ipairs({rows_h, wp, wf}) do chunked('HDEL', k, ids) end
  chunked('ZREM', idx, ids)
  if redis.call('ZCARD', idx) == 0 then
    redis.call('DEL', idx, rows_h, wp, wf, blobs)
    redis.call('SREM', KEYS[1], N)
  end
  a, g = a + 2 + n, g + 1
end
return redis.call('SCARD', KEYS[1])
""",
)

ALL_SCRIPTS = (FETCH, PUT, PUT_WRITES, DELETE_THREAD, DELETE_CHECKPOINTS)
