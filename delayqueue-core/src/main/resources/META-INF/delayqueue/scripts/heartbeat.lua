-- The engine instances' heartbeat: one ZSET of the consumer names of every live container,
-- scored by when each one's beat lapses (Redis clock, ms). One call per instance per beat,
-- whatever the number of queues and partitions.
-- KEYS[1] the heartbeat ZSET; ARGV[1] 'beat' or 'live', ARGV[2] lifetime ms,
-- ARGV[3..] for 'beat' this instance's consumer names, for 'live' the names to look up
-- Returns for 'beat' the members whose beat has lapsed (kept for 10 lifetimes, so each instance
-- sees each lapse); for 'live' those of the names given whose beat has not lapsed
local now = dq.now()
local lifetime = tonumber(ARGV[2])
if ARGV[1] == 'live' then
  local out = {}
  for i = 3, #ARGV do
    local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
    if score and tonumber(score) > now then out[#out + 1] = ARGV[i] end
  end
  return out
end
-- one ZADD per 500 names, not one per name
local pairs = {}
for i = 3, #ARGV do
  pairs[#pairs + 1] = now + lifetime
  pairs[#pairs + 1] = ARGV[i]
  if #pairs == 1000 or i == #ARGV then
    redis.call('ZADD', KEYS[1], unpack(pairs))
    pairs = {}
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 10 * lifetime)
redis.call('PEXPIRE', KEYS[1], lifetime * 20)
return redis.call('ZRANGE', KEYS[1], '-inf', now, 'BYSCORE')
