-- The live members of a group consuming a queue exclusively (partition ownership).
-- KEYS[1] the group's members ZSET (partition 0's slot), scored by when each member's heartbeat
-- expires (Redis clock, ms). ARGV[1] consumer, ARGV[2] heartbeat lifetime ms, ARGV[3] 'join'
-- (also a heartbeat), 'leave', or 'any' (writes nothing: is a member alive?).
-- Returns the live members (a 'leave' returns nothing; an 'any' at most one).
local now = dq.now()
if ARGV[3] == 'any' then
  return redis.call('ZRANGE', KEYS[1], now + 1, '+inf', 'BYSCORE', 'LIMIT', 0, 1)
end
if ARGV[3] == 'leave' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return {}
end
local lifetime = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lifetime, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
-- a group that stopped for good leaves nothing behind
redis.call('PEXPIRE', KEYS[1], lifetime * 10)
return redis.call('ZRANGE', KEYS[1], 0, -1)
