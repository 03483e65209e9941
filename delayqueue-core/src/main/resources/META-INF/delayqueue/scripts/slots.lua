-- Concurrency slots: who runs a handler of a consumer group (or of one message key) now,
-- across every instance (ConcurrencyLimit).
-- KEYS[1] the holders, a ZSET (member: a slot token, score: when the slot is free unless
-- renewed, epoch ms of the Redis clock); KEYS[2] the waiting instances in the order they came
-- (member: an instance's waiter id, score: when it came), KEYS[3] when each waiter last asked
-- (score: epoch ms). A per-key limit has KEYS[1] only: a message of a key at its limit goes
-- back to Redis instead of waiting.
-- ARGV[1] the operation:
--  'take' ARGV[2] the limit, ARGV[3] how long a slot lasts unless renewed (ms), ARGV[4] the
--    waiter id ('' for a per-key limit), ARGV[5] how long a waiter that stopped asking keeps
--    its place (ms), ARGV[6] the channel to tell waiters of a freed slot ('' none), ARGV[7]
--    what to publish there, ARGV[8] how many tokens to take, ARGV[9..] the tokens to take, then
--    tokens to free first. Each waiter ahead of this one is owed a free slot: slots go in the
--    order instances asked for them, so that no instance keeps them by taking again at once.
--    Returns {tokens taken}; none, and this waiter in line, when no slot is free for it.
--  'free' ARGV[2] the channel ('' none), ARGV[3] what to publish, ARGV[4..] the tokens.
--    Publishes when someone waits. Returns {freed}.
--  'renew' ARGV[2] how long a slot lasts (ms), ARGV[3..] the tokens. Returns {tokens lost}:
--    expired and gone (taken over by then).
--  'leave' ARGV[2] the waiter id: no longer waiting. Returns {0}.
--  'count' Returns {slots taken, instances waiting}; writes nothing.
-- Only commands of the least-privilege ACL (docs/operations.md): ZADD, ZREM, ZCARD, ZCOUNT,
-- ZSCORE, ZRANGE, ZREMRANGEBYSCORE, EXISTS, PEXPIRE, PUBLISH.
-- Run without the prelude (Scripts.bare): once per handler start.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local op = ARGV[1]
if op == 'count' then
  local waiting = 0
  if KEYS[2] then waiting = redis.call('ZCARD', KEYS[2]) end
  return {redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'), waiting}
end
if op == 'leave' then
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('ZREM', KEYS[3], ARGV[2])
  return {0}
end
-- frees the tokens from ARGV[from] on, in one ZREM; tells the waiters when some were freed
local function free_from(from, channel, body)
  if #ARGV < from then return 0 end
  local freed = redis.call('ZREM', KEYS[1], unpack(ARGV, from))
  if freed > 0 and channel ~= '' and KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('PUBLISH', channel, body)
  end
  return freed
end
if op == 'renew' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  local lease = tonumber(ARGV[2])
  local lost = {}
  for i = 3, #ARGV do
    if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + lease, ARGV[i]) == 0
        and not redis.call('ZSCORE', KEYS[1], ARGV[i]) then
      lost[#lost + 1] = ARGV[i]
    end
  end
  if redis.call('ZCARD', KEYS[1]) > 0 then redis.call('PEXPIRE', KEYS[1], lease) end
  return lost
end
if op == 'free' then
  return {free_from(4, ARGV[2], ARGV[3])}
end
-- take: the common case (slots free, nobody waiting) runs TIME, ZREM, ZCARD, EXISTS, ZADD
-- and PEXPIRE
local limit, lease, waiter, stale = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local wanted = tonumber(ARGV[8])
free_from(9 + wanted, ARGV[6], ARGV[7])
local held = redis.call('ZCARD', KEYS[1])
if held + wanted > limit then
  -- slots of holders that died lapse: counted only when they would be refused
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  held = redis.call('ZCARD', KEYS[1])
end
local free = limit - held
local came = false
if waiter ~= '' and redis.call('EXISTS', KEYS[2]) == 1 then
  -- each waiter ahead is owed a free slot: those that came before this one, or all when
  -- it is not in line; one that stopped asking loses its place
  local gone = redis.call('ZRANGE', KEYS[3], '-inf', now - stale, 'BYSCORE')
  if #gone > 0 then
    redis.call('ZREM', KEYS[2], unpack(gone))
    redis.call('ZREM', KEYS[3], unpack(gone))
  end
  came = redis.call('ZSCORE', KEYS[2], waiter)
  if came then
    free = free - redis.call('ZCOUNT', KEYS[2], '-inf', '(' .. came)
  else
    free = free - redis.call('ZCARD', KEYS[2])
  end
end
local taken = {}
local add = {}
for i = 9, 8 + math.min(wanted, math.max(free, 0)) do
  add[#add + 1] = now + lease
  add[#add + 1] = ARGV[i]
  taken[#taken + 1] = ARGV[i]
end
if #taken > 0 then
  redis.call('ZADD', KEYS[1], unpack(add))
  redis.call('PEXPIRE', KEYS[1], lease)
  if came then
    redis.call('ZREM', KEYS[2], waiter)
    redis.call('ZREM', KEYS[3], waiter)
  end
elseif waiter ~= '' then
  redis.call('ZADD', KEYS[2], 'NX', now, waiter)
  redis.call('ZADD', KEYS[3], now, waiter)
  redis.call('PEXPIRE', KEYS[2], stale * 2)
  redis.call('PEXPIRE', KEYS[3], stale * 2)
end
return taken
