-- Takes a permit to start a handler under a rate limit, by GCRA on the Redis clock: the state
-- is the theoretical arrival time (TAT) of the next start, in epoch microseconds.
-- KEYS[1] the limiter's state (a STRING, expiring once idle)
-- ARGV[1] the spacing of starts in microseconds (period / permits), ARGV[2] the tolerance in
-- microseconds ((burst - 1) x spacing), ARGV[3] a hold in microseconds (0: take a permit; more:
-- hold every start for that long from now, whatever the limit)
-- Returns {0} when the permit was taken (or the hold set), else {microseconds to wait}
-- Run without the prelude (Scripts.bare): once per handler start.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, tolerance, hold = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
if hold > 0 then
  -- the next start may come once the hold ended: the TAT moves past it by the tolerance
  local heldTo = now + hold + tolerance
  if heldTo > tat then tat = heldTo end
  redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + 1000)
  return {0}
end
local allowAt = tat - tolerance
if now < allowAt then return {allowAt - now} end
tat = tat + interval
redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + 1000)
return {0}
