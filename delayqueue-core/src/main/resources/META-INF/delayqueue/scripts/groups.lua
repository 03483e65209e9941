-- Reads the consumer groups of a stream (XINFO GROUPS), or none when the stream does not exist.
-- KEYS[1] stream
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
return redis.call('XINFO', 'GROUPS', KEYS[1])
