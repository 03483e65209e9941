-- Declares a queue's partition count, or reads the one already declared.
-- KEYS[1] the queue's meta hash (partition 0's slot). ARGV[1] the count declared here.
-- An unpartitioned queue (1) writes nothing; a first declaration of more is stored.
-- Returns {the count in Redis, the count before a change in progress or 0}: the caller
-- refuses to go on when the first differs.
-- A queue whose producer protocol (field 'protocol', docs/protocol.md; absent: 1) is not the
-- one this engine speaks is refused: its data is in a layout this engine does not know.
local protocol = redis.call('HGET', KEYS[1], 'protocol')
if protocol and protocol ~= '1' then
  return redis.error_reply('DQPROTOCOL queue ' .. KEYS[1] .. ' speaks producer protocol ' .. protocol
    .. ', and this engine speaks 1: upgrade it (docs/protocol.md)')
end
local current = redis.call('HGET', KEYS[1], 'partitions')
if current then
  return {tonumber(current), tonumber(redis.call('HGET', KEYS[1], 'previous') or '0')}
end
local declared = tonumber(ARGV[1])
if declared > 1 then
  redis.call('HSET', KEYS[1], 'partitions', declared)
end
return {declared, 0}
