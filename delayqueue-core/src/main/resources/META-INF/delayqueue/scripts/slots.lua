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
-- ZSCORE, ZRANGE, ZREMRANGEBYSCORE, PEXPIRE, PUBLISH.
local now = dq.now()
local op = ARGV[1]
local function notify(channel, body)
  if channel ~= '' and KEYS[2] and redis.call('ZCARD', KEYS[2]) > 0 then
    redis.call('PUBLISH', channel, body)
  end
end
local function prune_waiters(stale)
  local gone = redis.call('ZRANGE', KEYS[3], '-inf', now - stale, 'BYSCORE')
  for _, waiter in ipairs(gone) do
    redis.call('ZREM', KEYS[2], waiter)
    redis.call('ZREM', KEYS[3], waiter)
  end
end
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
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if op == 'renew' then
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
  local freed = 0
  for i = 4, #ARGV do freed = freed + redis.call('ZREM', KEYS[1], ARGV[i]) end
  if freed > 0 then notify(ARGV[2], ARGV[3]) end
  return {freed}
end
-- take
local limit, lease, waiter, stale = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local wanted = tonumber(ARGV[8])
local freed = 0
for i = 9 + wanted, #ARGV do freed = freed + redis.call('ZREM', KEYS[1], ARGV[i]) end
local free = limit - redis.call('ZCARD', KEYS[1])
if waiter ~= '' then
  prune_waiters(stale)
  -- the waiters ahead: those that came before it, or all when it is not in line
  local came = redis.call('ZSCORE', KEYS[2], waiter)
  if came then
    free = free - redis.call('ZCOUNT', KEYS[2], '-inf', '(' .. came)
  else
    free = free - redis.call('ZCARD', KEYS[2])
  end
end
local taken = {}
for i = 9, 8 + math.min(wanted, math.max(free, 0)) do
  redis.call('ZADD', KEYS[1], now + lease, ARGV[i])
  taken[#taken + 1] = ARGV[i]
end
if #taken > 0 then redis.call('PEXPIRE', KEYS[1], lease) end
if waiter ~= '' then
  if #taken > 0 then
    redis.call('ZREM', KEYS[2], waiter)
    redis.call('ZREM', KEYS[3], waiter)
  else
    redis.call('ZADD', KEYS[2], 'NX', now, waiter)
    redis.call('ZADD', KEYS[3], now, waiter)
    redis.call('PEXPIRE', KEYS[2], stale * 2)
    redis.call('PEXPIRE', KEYS[3], stale * 2)
  end
end
if freed > 0 then notify(ARGV[6], ARGV[7]) end
return taken
