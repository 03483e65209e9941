-- Cancels a scheduled message. KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] schedules HASH,
-- KEYS[4] far ZSET, KEYS[5] far-state HASH; ARGV[1] message id. The pending tick of a recurring
-- schedule is skipped: the schedule goes on with its next tick (a schedule's plan marker is not
-- a message: it is left alone). A message in the far tier leaves its index (dq.far_remove).
-- Returns 1 when it was scheduled, 0 otherwise
local name, tick = dq.tick_of(ARGV[1])
if name then
  if tick == 'plan' then return 0 end
  if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    local now = dq.now()
    local handled = dq.schedule_due(KEYS[3], KEYS[1], KEYS[2], nil, ARGV[1], name, tick, nil, now, false)
    if handled then return 1 end
  end
end
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
local far = dq.far_open(KEYS[4], KEYS[5])
if dq.far_remove(far, ARGV[1]) then
  dq.far_close(far)
  return 1
end
return 0
