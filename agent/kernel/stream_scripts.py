"""The Lua scripts of the kernel stream (``agent.kernel.stream``), one per atomic step.

Each touches the keys of one learner only (they share the hash tag ``{learner_id}``), so
every script runs on one Redis Cluster slot.
"""

# KEYS: seen, stream, tail, gen, parked. ARGV: ttl, parked(0/1), fields (JSON), tail (JSON {id: item}).
ENQUEUE = """
if not redis.call('set', KEYS[1], '1', 'NX', 'EX', tonumber(ARGV[1])) then return false end
local fields = cjson.decode(ARGV[3])
local flat = {}
for k, v in pairs(fields) do flat[#flat + 1] = k; flat[#flat + 1] = v end
local id = redis.call('xadd', KEYS[2], '*', unpack(flat))
local tail = cjson.decode(ARGV[4])
for tid, item in pairs(tail) do redis.call('hset', KEYS[3], tid, item) end
redis.call('incr', KEYS[4])
if ARGV[2] == '1' then redis.call('incr', KEYS[5]) end
return id
"""

# KEYS: stream, tail, parked, gen. ARGV: group, parked count, entry ids (JSON), tail ids (JSON).
ACK = """
local ids = cjson.decode(ARGV[3])
local tail = cjson.decode(ARGV[4])
local acked = 0
if #ids > 0 then
  acked = redis.call('xack', KEYS[1], ARGV[1], unpack(ids))
  redis.call('xdel', KEYS[1], unpack(ids))
end
if #tail > 0 then redis.call('hdel', KEYS[2], unpack(tail)) end
local parked = tonumber(ARGV[2])
if parked > 0 then
  if redis.call('decrby', KEYS[3], parked) <= 0 then redis.call('del', KEYS[3]) end
end
-- an erased learner's stream is gone: no generation key is re-created for them
if redis.call('exists', KEYS[1]) == 1 then redis.call('incr', KEYS[4]) end
return acked
"""

RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
REFRESH = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
)
