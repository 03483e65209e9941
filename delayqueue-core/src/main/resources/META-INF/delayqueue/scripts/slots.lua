-- Concurrency slots: who runs a handler of a consumer group now, across every instance
-- (ConcurrencyLimit), whatever the kind of the limit: every slot is counted for the whole
-- group and for its message key at once, so that a change of kind (2/key to 4, a group's
-- own limit replacing the queue's) counts the handlers already running.
-- KEYS[1] the holders, a ZSET (member: a slot, score: when the slot is free unless
-- renewed, epoch ms of the Redis clock); KEYS[2] the waiting instances in the order they came
-- (member: an instance's waiter id, score: when it came), KEYS[3] when each waiter last asked
-- (score: epoch ms); KEYS[4] the same slots by key, a ZSET of score 0 read by range of
-- members (none before this version: 'count' names KEYS[1..3] only).
-- A slot is '<length of the key>:<key>|<token>', so that the slots of one key are the
-- members from '<n>:<key>|' to '<n>:<key>}'. A slot without that form (taken by the release
-- before, which had no KEYS[4]) counts for the whole group only.
-- ARGV[1] the operation:
--  'take' ARGV[2] the limit, ARGV[3] how long a slot lasts unless renewed (ms), ARGV[4] the
--    waiter id ('' for a limit per key: no line), ARGV[5] how long a waiter that stopped
--    asking keeps its place (ms), ARGV[6] the channel to tell waiters of a freed slot ('' none),
--    ARGV[7] what to publish there, ARGV[8] the kind: 'key' (a limit per key), 'group', or
--    'ahead' (of the whole group, for a read: none free does not put the waiter in line),
--    ARGV[9] how many slots to take, ARGV[10..] the slots to take, then slots to free first. For the whole group each
--    waiter ahead of this one is owed a free slot: slots go in the order instances asked for
--    them, so that no instance keeps them by taking again at once; the slots are taken from
--    the first, as many as are free. Per key, each slot is taken while its key holds fewer than
--    the limit. Returns {slots taken}; for the whole group none, and this waiter in line, when
--    no slot is free for it.
--  'free' ARGV[2] the channel ('' none), ARGV[3] what to publish, ARGV[4] the freeing
--    instance's waiter id ('' none), ARGV[5..] the slots. Publishes when someone waits.
--    Returns {freed, 1 when other instances wait for a slot else 0}.
--  'renew' ARGV[2] how long a slot lasts (ms), ARGV[3] '1' to hold again a slot this server
--    does not have (after a failover: its handler runs, so it counts), else '0' (a slot that
--    lapsed, its holder out of reach past its leases, is lost to it), ARGV[4..] the slots.
--    Returns {slots that were missing}.
--  'leave' ARGV[2] the waiter id: no longer waiting. Returns {0}.
--  'count' Returns {slots taken, instances waiting}; writes nothing.
-- Only commands of the least-privilege ACL (docs/operations.md): ZADD, ZREM, ZCARD, ZCOUNT,
-- ZSCORE, ZRANGE, EXISTS, PEXPIRE, PUBLISH.
-- Run without the prelude (Scripts.bare): once per read, ack batch or wait.
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
local keyed = KEYS[4]
-- removes slots from both sets, at most 1000 a call to ZREM
local function remove(slots)
  local removed = 0
  for i = 1, #slots, 1000 do
    local last = math.min(i + 999, #slots)
    removed = removed + redis.call('ZREM', KEYS[1], unpack(slots, i, last))
    if keyed then redis.call('ZREM', keyed, unpack(slots, i, last)) end
  end
  return removed
end
-- slots of holders that died lapse
local function lapse()
  for _ = 1, 10 do
    local gone = redis.call('ZRANGE', KEYS[1], '-inf', now, 'BYSCORE', 'LIMIT', 0, 1000)
    if #gone == 0 then return end
    remove(gone)
    if #gone < 1000 then return end
  end
end
-- frees the slots from ARGV[from] on; tells the waiters when some were freed
-- returns how many were freed, and 1 when instances wait for a slot (0 when unknown)
local function free_from(from, channel, body)
  if #ARGV < from then return 0, 0 end
  local slots = {}
  for i = from, #ARGV do slots[#slots + 1] = ARGV[i] end
  local freed = remove(slots)
  local waiting = 0
  if freed > 0 and channel ~= '' and KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('PUBLISH', channel, body)
    waiting = 1
  end
  return freed, waiting
end
local function hold(slots, lease)
  if #slots == 0 then return end
  local scored, unscored = {}, {}
  for i = 1, #slots do
    scored[#scored + 1] = now + lease
    scored[#scored + 1] = slots[i]
    unscored[#unscored + 1] = 0
    unscored[#unscored + 1] = slots[i]
  end
  redis.call('ZADD', KEYS[1], unpack(scored))
  redis.call('PEXPIRE', KEYS[1], lease)
  redis.call('ZADD', keyed, unpack(unscored))
  redis.call('PEXPIRE', keyed, lease)
end
if op == 'renew' then
  lapse()
  local lease = tonumber(ARGV[2])
  local again = ARGV[3] == '1'
  local missing = {}
  for i = 4, #ARGV do
    if again then
      if redis.call('ZADD', KEYS[1], now + lease, ARGV[i]) == 1 then
        missing[#missing + 1] = ARGV[i]
        redis.call('ZADD', keyed, 0, ARGV[i])
      end
    elseif redis.call('ZADD', KEYS[1], 'XX', 'CH', now + lease, ARGV[i]) == 0
        and not redis.call('ZSCORE', KEYS[1], ARGV[i]) then
      missing[#missing + 1] = ARGV[i]
      redis.call('ZREM', keyed, ARGV[i])
    end
  end
  if redis.call('ZCARD', KEYS[1]) > 0 then
    redis.call('PEXPIRE', KEYS[1], lease)
    redis.call('PEXPIRE', keyed, lease)
  end
  return missing
end
if op == 'free' then
  local freed, waiting = free_from(5, ARGV[2], ARGV[3])
  if waiting == 1 and ARGV[4] ~= '' and redis.call('ZCARD', KEYS[2]) == 1
      and redis.call('ZSCORE', KEYS[2], ARGV[4]) then
    -- only the instance freeing waits
    waiting = 0
  end
  return {freed, waiting}
end
local limit, lease, waiter, stale = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local wanted = tonumber(ARGV[9])
free_from(10 + wanted, ARGV[6], ARGV[7])
local taken = {}
local kind = ARGV[8]
if kind == 'key' then
  -- per key: the key's slots, by their members; one whose holder died, or that is gone
  -- from KEYS[1] (lapsed there by the release before), is left out once the key is full
  local counts = {}
  local function held_by(low, high)
    return redis.call('ZRANGE', keyed, low, high, 'BYLEX', 'LIMIT', 0, limit)
  end
  for i = 10, 9 + wanted do
    local slot = ARGV[i]
    local digits = string.match(slot, '^(%d+):')
    local prefix = string.sub(slot, 1, #digits + tonumber(digits) + 2)
    local count = counts[prefix]
    if not count then
      local low, high = '[' .. prefix, '(' .. string.sub(prefix, 1, -2) .. '}'
      local holders = held_by(low, high)
      if #holders >= limit then
        local stale_slots = {}
        for _, holder in ipairs(holders) do
          local until_ms = redis.call('ZSCORE', KEYS[1], holder)
          if not until_ms or tonumber(until_ms) <= now then stale_slots[#stale_slots + 1] = holder end
        end
        if #stale_slots > 0 then
          remove(stale_slots)
          holders = held_by(low, high)
        end
      end
      count = #holders
    end
    if count < limit then
      taken[#taken + 1] = slot
      count = count + 1
    end
    counts[prefix] = count
  end
  hold(taken, lease)
  return taken
end
-- the whole group: the common case (slots free, nobody waiting) runs TIME, ZCARD, EXISTS,
-- two ZADD and two PEXPIRE, whatever the number of slots
local held = redis.call('ZCARD', KEYS[1])
if held + wanted > limit then
  -- slots of holders that died lapse: counted only when they would be refused
  lapse()
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
for i = 10, 9 + math.min(wanted, math.max(free, 0)) do
  taken[#taken + 1] = ARGV[i]
end
if #taken > 0 then
  hold(taken, lease)
  if came then
    redis.call('ZREM', KEYS[2], waiter)
    redis.call('ZREM', KEYS[3], waiter)
  end
elseif waiter ~= '' and kind == 'group' then
  redis.call('ZADD', KEYS[2], 'NX', now, waiter)
  redis.call('ZADD', KEYS[3], now, waiter)
  redis.call('PEXPIRE', KEYS[2], stale * 2)
  redis.call('PEXPIRE', KEYS[3], stale * 2)
end
return taken
