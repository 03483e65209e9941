-- Changes a queue's partition count, unless it changed since the caller read it or an earlier
-- change is still in progress.
-- KEYS[1] the queue's meta hash. ARGV[1] the count read by the caller, ARGV[2] the new count,
-- ARGV[3] '1' when old partitions drain (the old count is kept as 'previous' until the change
-- is finished), else '0'
-- Returns {1} when changed; {0, count now, previous count or 0} when refused
local current = tonumber(redis.call('HGET', KEYS[1], 'partitions') or '1')
local previous = tonumber(redis.call('HGET', KEYS[1], 'previous') or '0')
if current ~= tonumber(ARGV[1]) or previous > 0 then return {0, current, previous} end
redis.call('HSET', KEYS[1], 'partitions', ARGV[2])
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'previous', ARGV[1]) end
return {1}
