-- Removes dead letters older than the retention, by the Redis clock (entry ids are Redis times).
-- KEYS[1] dead stream; ARGV[1] retention in ms. Returns the number removed.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('XTRIM', KEYS[1], 'MINID', string.format('%d-0', now - tonumber(ARGV[1])))
