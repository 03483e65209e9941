-- Moves a scheduled message to a new due time (or to the stream when that time has come).
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream
-- ARGV[1] message id, ARGV[2] kind ('d' delay ms | 'a' absolute epoch ms), ARGV[3] value, ARGV[4] wake channel
-- Returns {1, due} when it was scheduled, {0, -1} otherwise
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {0, -1} end
local now, nowUp = dq.now()
local due = dq.due(ARGV[2], tonumber(ARGV[3]), now, nowUp)
if due <= now then
  local env = redis.call('HGET', KEYS[2], ARGV[1])
  dq.add_ready(KEYS[3], ARGV[1], env, due, 1)
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], 'XX', due, ARGV[1])
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)
  if head[1] == ARGV[1] then redis.call('PUBLISH', ARGV[4], due) end
end
return {1, due}
