-- Moves a scheduled message to a new due time (or to the stream when that time has come and
-- no other message due as early or earlier still waits in the schedule: the stream keeps due
-- order).
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream, KEYS[4] urgent stream (messages with a priority)
-- ARGV[1] message id, ARGV[2] kind ('d' delay ms | 'a' absolute epoch ms), ARGV[3] value, ARGV[4] wake channel
-- Returns {1, due} when it was scheduled, {0, -1} otherwise
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {0, -1} end
local now, nowUp = dq.now()
local due = dq.due(ARGV[2], tonumber(ARGV[3]), now, nowUp)
local earlier = redis.call('ZRANGE', KEYS[1], '-inf', due, 'BYSCORE', 'LIMIT', 0, 2)
local alone = #earlier == 0 or (#earlier == 1 and earlier[1] == ARGV[1])
if due <= now and alone then
  local env = redis.call('HGET', KEYS[2], ARGV[1])
  dq.add_ready(dq.ready_stream(env, KEYS[3], KEYS[4]), ARGV[1], dq.start_expiry(env, due), due, 1)
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], 'XX', due, ARGV[1])
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)
  if head[1] == ARGV[1] or due <= now then redis.call('PUBLISH', ARGV[4], due) end
end
return {1, due}
