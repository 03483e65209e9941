-- Deletes, pauses, resumes or triggers a recurring schedule (see the prelude).
-- KEYS[1] schedules HASH, KEYS[2] delayed ZSET, KEYS[3] msgs HASH, KEYS[4] stream
-- ARGV[1] wake-up channel, ARGV[2] operation ('delete', 'pause', 'resume', 'trigger'), ARGV[3]
-- name, ARGV[4] (resume) the first upcoming ticks after Redis now, comma-separated
-- Returns {1 done, 0 no such schedule; trigger: the message id}
local sched, op, name = KEYS[1], ARGV[2], ARGV[3]
if redis.call('HEXISTS', sched, 'e:' .. name) == 0 then return {0} end
local now = dq.now()
if op == 'delete' then
  dq.remove_pending(sched, KEYS[2], KEYS[3], name)
  local fields = {}
  for _, f in ipairs({'d', 'e', 'm', 'g', 'n', 'q', 'l', 'c', 'x', 'p', 'u', 't'}) do fields[#fields + 1] = f .. ':' .. name end
  redis.call('HDEL', sched, unpack(fields))
elseif op == 'pause' then
  dq.remove_pending(sched, KEYS[2], KEYS[3], name)
  redis.call('HSET', sched, 'p:' .. name, '1', 'u:' .. name, now)
elseif op == 'resume' then
  if redis.call('HEXISTS', sched, 'p:' .. name) == 1 then
    redis.call('HDEL', sched, 'p:' .. name)
    redis.call('HSET', sched, 'q:' .. name, ARGV[4], 'u:' .. name, now)
    local last = redis.call('HGET', sched, 'l:' .. name)
    dq.install_next(sched, KEYS[2], KEYS[3], name, tonumber(last or '-1') + 1, now)
    local n = redis.call('HGET', sched, 'n:' .. name)
    if n then dq.wake_if_head(KEYS[2], ARGV[1], n) end
  end
elseif op == 'trigger' then
  -- an extra message now, besides the ticks: not a tick id (dq.tick_of does not match it). Its
  -- id holds the Redis time in microseconds, made later than the schedule's last trigger (field
  -- t), so that every trigger has an id of its own, however close together they come
  local _, _, micros = dq.now()
  local last = tonumber(redis.call('HGET', sched, 't:' .. name) or '0')
  if micros <= last then micros = last + 1 end
  -- 16 digits: Lua's tostring would round them
  local stamp = string.format('%.0f', micros)
  redis.call('HSET', sched, 't:' .. name, stamp)
  local id = dq.tick_id(name, 'now-' .. stamp)
  local env = redis.call('HGET', sched, 'e:' .. name)
  dq.add_ready(KEYS[4], id, dq.start_expiry(env, now), now, 1)
  return {id}
end
return {1}
