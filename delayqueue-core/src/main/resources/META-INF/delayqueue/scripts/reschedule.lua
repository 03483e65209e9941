-- Moves a scheduled message to a new due time (or to the stream when that time has come).
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream
-- ARGV[1] message id, ARGV[2] kind ('d' delay ms | 'a' absolute epoch ms), ARGV[3] value, ARGV[4] wake channel
-- Returns {1, due} when it was scheduled, {0, -1} otherwise
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {0, -1} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = tonumber(ARGV[3])
if ARGV[2] == 'd' then
  if due > 0 then
    -- from Redis now rounded up to the next ms (never early), at most 9999-12-31T23:59:59.999Z
    local nowUp = now
    if tonumber(t[2]) % 1000 > 0 then nowUp = now + 1 end
    due = math.min(nowUp + due, 253402300799999)
  else
    due = now
  end
end
if due <= now then
  local env = redis.call('HGET', KEYS[2], ARGV[1])
  redis.call('XADD', KEYS[3], '*', 'i', ARGV[1], 'e', env, 'd', due, 'a', 1)
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], 'XX', due, ARGV[1])
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)
  if head[1] == ARGV[1] then redis.call('PUBLISH', ARGV[4], due) end
end
return {1, due}
