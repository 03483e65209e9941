-- Removes dead letters older than the retention, by the Redis clock (entry ids are Redis times).
-- KEYS[1] dead stream; ARGV[1] retention in ms. Returns the number removed.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local now = dq.now()
return redis.call('XTRIM', KEYS[1], 'MINID', string.format('%d-0', now - tonumber(ARGV[1])))
