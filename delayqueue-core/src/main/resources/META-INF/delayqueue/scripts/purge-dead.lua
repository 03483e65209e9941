-- Deletes all dead letters in one step, counting exactly what it deletes.
-- KEYS[1] dead stream. Returns {number of entries deleted}
local n = redis.call('XLEN', KEYS[1])
redis.call('DEL', KEYS[1])
return {n}
