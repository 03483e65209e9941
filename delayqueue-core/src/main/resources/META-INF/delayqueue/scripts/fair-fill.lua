-- Moves waiting messages of a fair-share queue's partition to its stream (dq.fill_fair), so
-- that the reading group has up to ARGV[2] entries to read: called by a reader before it reads.
-- While due messages wait in the schedule for the scheduler to hold them (a backlog that
-- came due at once: other keys' messages may be among them), it moves one at most and wakes
-- the scheduler: the turns are taken once every due message is held.
-- KEYS[1] fair ZSET, KEYS[2] fair-state HASH, KEYS[3] stream, KEYS[4] delayed ZSET
-- ARGV[1] the reader's group, ARGV[2] the entries it is about to read, ARGV[3] wake-up channel
-- Returns {moved, messages still waiting}
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0} end
local window = tonumber(ARGV[2])
local room = window - dq.unread(KEYS[3], ARGV[1], window)
local head = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')
if room > 1 and head[2] and tonumber(head[2]) <= dq.now() then
  room = 1
  redis.call('PUBLISH', ARGV[3], head[2])
end
local state = dq.fair_open(KEYS[2])
local moved = dq.fill_fair(state, KEYS[1], KEYS[3], room)
dq.fair_close(state)
return {moved, redis.call('ZCARD', KEYS[1])}
