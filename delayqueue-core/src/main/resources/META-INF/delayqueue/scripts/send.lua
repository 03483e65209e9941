-- Schedules messages (dedup by id; optional replace = debounce), or makes them ready at once
-- when already due and no message due as early or earlier still waits in the schedule (it
-- would be promoted after this one: the stream keeps due order). Time comes from Redis.
-- A queue with a size limit (KEYS[5], the queue's maximum of waiting messages, set by the admin)
-- takes a new message into a partition only while the partition holds fewer than its share
-- (the maximum divided by the partition count, rounded up) of waiting messages: scheduled
-- (ZCARD) plus ready (due, and not yet read by the group furthest behind: its lag; the
-- stream's length where a lag is unknown: no group yet, or Redis before 7.0); it refuses the
-- others, writing nothing for them.
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream, KEYS[4] retired marker (a partition
-- retired by a change of the partition count takes no more messages), KEYS[5] size limit,
-- KEYS[6] urgent stream (due messages with a priority), KEYS[7] fair ZSET, KEYS[8] fair-state HASH
-- (in a fair-share queue a message due at once without a priority waits there: dq.hold_fair),
-- KEYS[9] far ZSET, KEYS[10] far-state HASH (a message due compactAfter or more ahead goes to the
-- far tier: dq.far_add)
-- ARGV[1] wake-up channel, ARGV[2] message count, ARGV[3] partition count, ARGV[4] '1' for a
-- fair-share queue, ARGV[5] '<compactAfter ms>:<slot minimum>' (0: no far tier; dq.compact,
-- dq.far_wants), then per message:
--   id, envelope, kind ('d' = delay in ms from Redis now, 'a' = absolute epoch ms), value,
--   mode ('0' keep an existing one, '1' replace it, '2' generated id: no existing one to look for)
-- Moving messages from another queue (RedissonMigration, ZSetMigration): KEYS[11] a ZSET (Redisson's
-- timeout ZSET, or a hand-written queue's), KEYS[12] Redisson's list, or the hand-written queue's
-- hash of payloads (KEYS[11] again when it has none), KEYS[13] Redisson's destination list; and
-- after the messages, per message, where it comes from and that member: 'z' a member of
-- Redisson's timeout ZSET (removed from it and its list), 'l' an entry of its destination list,
-- 'h' a member of a hand-written ZSET (removed from it and its hash). A message whose member is
-- gone (taken by the other queue's consumers, or moved by an earlier run) is skipped (status 6);
-- one written is removed from there, in this one script (one refused by the size limit stays).
-- Returns per message: status (1 scheduled, 2 ready, 3 duplicate, 4 replaced, 5 refused: over
-- the size limit, 6 gone from its source), due epoch ms (refused: the queue's maximum)
-- The marker is checked on every write: a queue moved to another producer protocol has the
-- marker 'protocol <n>' on each of its partitions (docs/protocol.md), so a producer that read
-- the queue's meta before the move writes nothing into it
local retired = redis.call('GET', KEYS[4])
if retired then
  if string.sub(retired, 1, 9) == 'protocol ' then
    return redis.error_reply('DQRETIRED this partition was retired: its queue speaks producer ' .. retired
      .. ', and this producer speaks 1: upgrade it (docs/protocol.md)')
  end
  return redis.error_reply('DQRETIRED this partition was retired by a change of the queue\'s partition count: '
    .. 'the sending application declares the old count and must be restarted with the new one')
end
local now, nowUp = dq.now()
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local headScore = head[2] and tonumber(head[2]) or nil
local wake = false
local fair = nil
local out = {}
-- scheduled messages are written together (dq.bulk); an id already written this call flushes
-- them first, so its look-up sees it
local zadd, hset, written = {}, {}, {}
local function flush()
  dq.bulk('HSET', KEYS[2], hset)
  dq.bulk('ZADD', KEYS[1], zadd)
  zadd, hset, written = {}, {}, {}
end
-- due messages the slowest group has not read yet (dq.lag: the stream's length where it is
-- unknown)
local function ready(stream)
  if redis.call('EXISTS', stream) == 0 then return 0 end
  local groups = dq.groups(stream)
  if #groups == 0 then return redis.call('XLEN', stream) end
  local most = 0
  for _, f in ipairs(groups) do
    local lag = dq.lag(stream, f)
    if not lag then return redis.call('XLEN', stream) end
    if lag > most then most = lag end
  end
  return most
end
local compact, farMin = dq.compact(ARGV[5])
-- a move from a Redisson delayed queue: its timeout ZSET, its list and its destination list
local sources = #KEYS >= 13
local function source_holds(src, member)
  if src == 'l' then return redis.call('LPOS', KEYS[13], member) ~= false end
  return redis.call('ZSCORE', KEYS[11], member) ~= false
end
local function source_remove(src, member)
  if src == 'l' then
    redis.call('LREM', KEYS[13], 1, member)
    return
  end
  redis.call('ZREM', KEYS[11], member)
  if src == 'z' then
    redis.call('LREM', KEYS[12], 1, member)
  elseif KEYS[12] ~= KEYS[11] then
    redis.call('HDEL', KEYS[12], member)
  end
end
local far = nil
local function far_state()
  far = far or dq.far_open(KEYS[9], KEYS[10])
  return far
end
local max = redis.call('GET', KEYS[5])
local share, waiting = nil, 0
if max then
  share = math.ceil(tonumber(max) / tonumber(ARGV[3]))
  waiting = redis.call('ZCARD', KEYS[1]) + ready(KEYS[3]) + ready(KEYS[6]) + redis.call('ZCARD', KEYS[7])
    + far_state().n
end
for i = 0, tonumber(ARGV[2]) - 1 do
  local b = 6 + i * 5
  local id, env, kind, value, replace = ARGV[b], ARGV[b + 1], ARGV[b + 2], tonumber(ARGV[b + 3]), ARGV[b + 4]
  -- a message moved from another queue (RedissonMigration): still there, or taken meanwhile
  local src, member = nil, nil
  if sources then
    local t = 6 + tonumber(ARGV[2]) * 5 + i * 2
    src, member = ARGV[t], ARGV[t + 1]
  end
  if src and not source_holds(src, member) then
    out[#out + 1] = 6
    out[#out + 1] = 0
  else
    local due = dq.due(kind, value, now, nowUp)
    local existing, existingFar = nil, false
    if replace ~= '2' then
      if written[id] then flush() end
      existing = redis.call('ZSCORE', KEYS[1], id)
      if not existing then
        existing = dq.far_due(far_state(), id)
        existingFar = existing ~= nil
      end
    end
    local status
    if existing and replace ~= '1' then
      status = 3
      due = tonumber(existing)
    elseif share and not existing and waiting >= share then
      status = 5
      due = tonumber(max)
    else
      if not existing then waiting = waiting + 1 end
      if existing then status = 4 end
      -- a replaced message in the far tier: out of its index (its stream entry is skipped)
      if existingFar then dq.far_remove(far, id) end
      local toFar = compact > 0 and due - now >= compact
        and dq.far_wants(far_state(), KEYS[1], due, math.floor(compact / 2), farMin)
      if existing and not existingFar and (toFar or (due <= now and (headScore == nil or headScore > due))) then
        redis.call('ZREM', KEYS[1], id)
        redis.call('HDEL', KEYS[2], id)
      end
      if toFar then
        dq.far_add(far_state(), id, env, due, math.floor(compact / 2))
        status = status or 1
      elseif due <= now and (headScore == nil or headScore > due) then
        local stream = dq.ready_stream(env, KEYS[3], KEYS[6])
        if ARGV[4] == '1' and stream == KEYS[3] then
          fair = fair or dq.fair_open(KEYS[8])
          dq.hold_fair(fair, KEYS[7], id, dq.start_expiry(env, due), due)
        else
          dq.add_ready(stream, id, dq.start_expiry(env, due), due, 1)
        end
        status = status or 2
      else
        hset[#hset + 1] = id
        hset[#hset + 1] = env
        zadd[#zadd + 1] = due
        zadd[#zadd + 1] = id
        written[id] = true
        status = status or 1
        if headScore == nil or due < headScore then
          headScore = due
          wake = true
        elseif due <= now then
          -- due behind an earlier message the scheduler has yet to move: promote now
          wake = true
        end
      end
    end
    out[#out + 1] = status
    out[#out + 1] = due
    if src and out[#out - 1] ~= 5 then source_remove(src, member) end
  end
end
flush()
if far then dq.far_close(far) end
if fair then dq.fair_close(fair) end
if wake then
  redis.call('PUBLISH', ARGV[1], headScore)
elseif fair then
  -- the scheduler fills the stream from the fair ZSET: readers waiting on the stream wake
  redis.call('PUBLISH', ARGV[1], now)
end
return out
