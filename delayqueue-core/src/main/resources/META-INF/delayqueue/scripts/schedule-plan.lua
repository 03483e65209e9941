-- Adds upcoming ticks to a recurring schedule (see the prelude), planned by the JVM from the
-- state it read: nothing changes unless that state is still the schedule's (its definition,
-- pending tick and upcoming ticks), so concurrent planners cannot plan a tick twice. A stalled
-- schedule (no pending tick) gets its next tick installed.
-- KEYS[1] schedules HASH, KEYS[2] delayed ZSET, KEYS[3] msgs HASH
-- ARGV[1] wake-up channel, ARGV[2] name, ARGV[3] definition read, ARGV[4] pending tick read
-- ('' for none), ARGV[5] upcoming ticks read, ARGV[6] ticks to add (after all of these)
-- A stalled schedule given no tick matches no time any more (a zone's rules changed): it ends,
-- its plan marker removed, so that it costs nothing; it stays listed, with no pending tick.
-- Returns {1 planned, 2 ended, 0 the state changed meanwhile (nothing written)}
local sched, name = KEYS[1], ARGV[2]
local function get(f) return redis.call('HGET', sched, f .. ':' .. name) or '' end
if get('d') ~= ARGV[3] or get('p') ~= '' or get('n') ~= ARGV[4] or get('q') ~= ARGV[5] then
  return {0}
end
if ARGV[4] == '' and ARGV[5] == '' and ARGV[6] == '' then
  redis.call('ZREM', KEYS[2], dq.tick_id(name, 'plan'))
  return {2}
end
local q = ARGV[5]
if q == '' then q = ARGV[6] elseif ARGV[6] ~= '' then q = q .. ',' .. ARGV[6] end
redis.call('HSET', sched, 'q:' .. name, q)
if ARGV[4] == '' then
  local now = dq.now()
  local last = get('l')
  dq.install_next(sched, KEYS[2], KEYS[3], name, tonumber(last ~= '' and last or '-1') + 1, now)
  local n = get('n')
  if n ~= '' then dq.wake_if_head(KEYS[2], ARGV[1], n) end
end
return {1}
