-- Gives back, on shutdown, the entries this consumer holds but will not process: read but not
-- started, or read by a blocking read that the shutdown interrupted. They become idle for the
-- visibility timeout (so any other consumer recovers them at once) and their delivery count
-- drops by one (a delivery that never reached the handler uses up no attempt).
-- KEYS[1] stream; ARGV[1] group, ARGV[2] consumer, ARGV[3] idle ms, ARGV[4..] entry ids to keep
-- (handlers still running). Returns the number released.
local keep = {}
for i = 4, #ARGV do keep[ARGV[i]] = true end
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 10000, ARGV[2])
local released = 0
for _, p in ipairs(pending) do
  if not keep[p[1]] then
    local count = math.max(0, p[4] - 1)
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, p[1], 'IDLE', ARGV[3], 'RETRYCOUNT', count, 'JUSTID')
    released = released + 1
  end
end
return released
