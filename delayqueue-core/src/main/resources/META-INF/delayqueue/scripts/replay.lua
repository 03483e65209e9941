-- Replays a dead letter: schedules it as attempt 1 for its group now, and removes it from the
-- dead-letter stream. KEYS[1] dead stream, KEYS[2] the group's retry ZSET
-- ARGV[1] dead entry id, ARGV[2] group the retry ZSET belongs to, ARGV[3] wake channel
-- Returns 1 when replayed, 0 when the entry is gone or belongs to another group
local e = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #e == 0 then return 0 end
local id, envelope, group = dq.read_dead(e[1][2])
if group ~= ARGV[2] then return 0 end
local now = dq.now()
redis.call('ZADD', KEYS[2], now, dq.retry_member(ARGV[1], 1, id, dq.clear_expiry(envelope)))
redis.call('XDEL', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], now)
return 1
