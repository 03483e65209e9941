-- Cancels a scheduled message. KEYS[1] delayed ZSET, KEYS[2] msgs HASH; ARGV[1] message id
-- Returns 1 when it was scheduled, 0 otherwise
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
return 0
