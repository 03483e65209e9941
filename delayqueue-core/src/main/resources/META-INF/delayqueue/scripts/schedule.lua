-- Creates or updates a recurring schedule (see the prelude): an unchanged definition changes
-- nothing, so any number of instances may declare the same schedule at any time; a changed one
-- replaces the pending tick at once. A paused schedule stays paused.
-- KEYS[1] schedules HASH, KEYS[2] delayed ZSET, KEYS[3] msgs HASH
-- ARGV[1] wake-up channel, ARGV[2] name, ARGV[3] definition, ARGV[4] envelope, ARGV[5] policy,
-- ARGV[6] grace ms, ARGV[7] the first upcoming ticks (comma-separated, after Redis now)
-- Returns {1 created, 2 updated, 3 unchanged; then the schedule's fields as this script left
-- them, letter and value for each of d e m g n l c x p u that is set}, so the caller learns what
-- it registered even when a delete follows at once
local sched, name = KEYS[1], ARGV[2]
local function get(f) return redis.call('HGET', sched, f .. ':' .. name) end
local function reply(status)
  local out = {status}
  for _, f in ipairs({'d', 'e', 'm', 'g', 'n', 'l', 'c', 'x', 'p', 'u'}) do
    local v = get(f)
    if v then
      out[#out + 1] = f
      out[#out + 1] = v
    end
  end
  return out
end
local now = dq.now()
local status = 3
if get('d') ~= ARGV[3] or get('e') ~= ARGV[4] or get('m') ~= ARGV[5] or get('g') ~= ARGV[6] then
  if get('d') then status = 2 else status = 1 end
  dq.remove_pending(sched, KEYS[2], KEYS[3], name)
  redis.call('HSET', sched, 'd:' .. name, ARGV[3], 'e:' .. name, ARGV[4], 'm:' .. name, ARGV[5],
    'g:' .. name, ARGV[6], 'u:' .. name, now)
elseif get('n') then
  return reply(3)
end
if get('p') then return reply(status) end
-- new, changed, or stalled: the given ticks, none at or before the last one
redis.call('HSET', sched, 'q:' .. name, ARGV[7])
dq.install_next(sched, KEYS[2], KEYS[3], name, tonumber(get('l') or '-1') + 1, now)
local n = get('n')
if n then dq.wake_if_head(KEYS[2], ARGV[1], n) end
return reply(status)
