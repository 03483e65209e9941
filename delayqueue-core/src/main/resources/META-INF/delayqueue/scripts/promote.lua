-- Moves due messages (by the Redis clock) from the delayed ZSET to the stream, and due retries
-- of the given groups from their retry ZSETs to their retry streams, at most ARGV[1] per source.
-- A due tick of a recurring schedule fires (dq.schedule_due) and installs the schedule's next.
-- In a fair-share queue (ARGV[2] '1') a due message without a priority waits in the fair ZSET
-- (dq.hold_fair), and the stream is filled from it while the group furthest ahead has fewer than
-- ARGV[3] entries to read (readers fill it before they read: fair-fill.lua); otherwise what waits
-- there (the queue was fair-share before) goes to the stream, at most ARGV[1] per call.
-- First the far slots starting within ARGV[4] ms are moved into the schedule (dq.far_move).
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream, KEYS[4] schedules HASH, KEYS[5] urgent
-- stream (due messages with a priority), KEYS[6] fair ZSET, KEYS[7] fair-state HASH, KEYS[8] far
-- ZSET, KEYS[9] far-state HASH, then pairs KEYS[k] retry ZSET of a group, KEYS[k+1] retry stream
-- of that group
-- Returns {moved, next due epoch ms or -1, Redis now epoch ms, 1 if a source hit the limit else 0,
--          Redis now epoch microseconds (for a sleep that ends right at the next due millisecond),
--          the schedules whose upcoming ticks the JVM is to plan}
local now, _, nowMicros = dq.now()
local limit = tonumber(ARGV[1])
local fair = nil
if ARGV[2] == '1' then fair = dq.fair_open(KEYS[7]) end
local moved, full, nextDue = 0, 0, -1
local plan = {}
-- the head of a schedule: its earliest score, or nil when empty
local function head(key)
  local h = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if h[2] then return tonumber(h[2]) end
  return nil
end
local function earliest(score)
  if score and (nextDue < 0 or score < nextDue) then nextDue = score end
end
-- an idle source costs one ZRANGE: the range query runs only when its head is due
local function dueMembers(key)
  local first = head(key)
  if first == nil or first > now then
    earliest(first)
    return nil
  end
  return redis.call('ZRANGE', key, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES')
end
local lead = tonumber(ARGV[4])
local farHead = redis.call('ZRANGE', KEYS[8], 0, 0, 'WITHSCORES')
if farHead[2] then
  if tonumber(farHead[2]) - lead <= now then
    local far = dq.far_open(KEYS[8], KEYS[9])
    local read = dq.far_move(far, KEYS[1], KEYS[2], now + lead, limit)
    dq.far_close(far)
    if read >= limit then full = 1 end
    farHead = redis.call('ZRANGE', KEYS[8], 0, 0, 'WITHSCORES')
  end
  if farHead[2] then earliest(tonumber(farHead[2]) - lead) end
end
local due = dueMembers(KEYS[1]) or {}
-- the envelopes are read, and the moved members removed, in bulk (dq.bulk); a tick's handling
-- sees the schedule as it is, and after one, a tick-like id reads its envelope again
local ids = {}
for i = 1, #due, 2 do ids[#ids + 1] = due[i] end
local envs = dq.hmget(KEYS[2], ids)
local done = {}
local function removeDone()
  dq.bulk('ZREM', KEYS[1], done)
  dq.bulk('HDEL', KEYS[2], done)
  done = {}
end
for i = 1, #due, 2 do
  local id = due[i]
  local name, tick = dq.tick_of(id)
  local handled, planNeeded = false, false
  if name then
    removeDone()
    handled, planNeeded = dq.schedule_due(KEYS[4], KEYS[1], KEYS[2], KEYS[3], id, name, tick, due[i + 1], now, true)
    if planNeeded then plan[#plan + 1] = name end
  end
  if not handled then
    local env = envs[(i + 1) / 2]
    if name then env = redis.call('HGET', KEYS[2], id) end
    if env then
      local stream = dq.ready_stream(env, KEYS[3], KEYS[5])
      if fair and stream == KEYS[3] then
        dq.hold_fair(fair, KEYS[6], id, dq.start_expiry(env, due[i + 1]), due[i + 1])
      else
        dq.add_ready(stream, id, dq.start_expiry(env, due[i + 1]), due[i + 1], 1)
      end
    else
      -- a member without its envelope (another program's ZADD, or an envelope lost): moved
      -- as an entry without one, which every group dead-letters saying so, never dropped
      dq.add_unreadable(KEYS[3], id, due[i + 1])
    end
    done[#done + 1] = id
  end
  moved = moved + 1
end
removeDone()
if #due >= limit * 2 then full = 1 end
if #due > 0 then earliest(head(KEYS[1])) end
if fair then
  -- while due messages remain to be held (other keys' among them), one entry wakes the readers
  local window = (full == 1) and 1 or tonumber(ARGV[3])
  moved = moved + dq.fill_fair(fair, KEYS[6], KEYS[3], window - dq.unread(KEYS[3], nil, window))
  dq.fair_close(fair)
elseif redis.call('EXISTS', KEYS[6]) == 1 then
  local state = dq.fair_open(KEYS[7])
  moved = moved + dq.fill_fair(state, KEYS[6], KEYS[3], limit)
  dq.fair_close(state)
  if redis.call('EXISTS', KEYS[6]) == 1 then full = 1 end
end
for k = 10, #KEYS, 2 do
  local retries = dueMembers(KEYS[k]) or {}
  local members = {}
  for i = 1, #retries, 2 do
    local m = retries[i]
    local id, env, attempt, class, message, trace = dq.read_retry_member(m)
    dq.add_ready(KEYS[k + 1], id, env, retries[i + 1], attempt, class, message, trace)
    members[#members + 1] = m
    moved = moved + 1
  end
  dq.bulk('ZREM', KEYS[k], members)
  if #retries >= limit * 2 then full = 1 end
  if #retries > 0 then earliest(head(KEYS[k])) end
end
return {moved, nextDue, now, full, nowMicros, plan}
