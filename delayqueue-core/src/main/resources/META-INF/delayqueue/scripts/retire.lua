-- Checks that an old partition, left by a change of the queue's partition count, holds
-- nothing any more, and retires it when asked: sends to it are then refused, so nothing can
-- arrive where no consumer reads. Each consumer group on the partition's streams must have
-- read every entry and settled it; no message may wait in its schedule, its retry schedules
-- or its dead letters.
-- KEYS[1] delayed ZSET, KEYS[2] stream, KEYS[3] dead-letter stream, KEYS[4] retired marker,
-- then for each group ARGV names: KEYS[3 + 2i] its retry ZSET, KEYS[4 + 2i] its retry stream,
-- and last the urgent stream (due messages with a priority), the fair ZSET (due messages
-- waiting for their turn in a fair-share queue) and the far-state HASH (its 'n': messages in the
-- far tier)
-- ARGV[1] 'check' or 'retire', ARGV[2..] the groups on the stream as the caller read them (a
-- group created since is reported: its retries were not looked at)
-- Returns what the partition still holds, one line each; nothing when it is drained
local held = {}
local function id_after(a, b)
  local am, as = string.match(a, '(%d+)-(%d+)')
  local bm, bs = string.match(b, '(%d+)-(%d+)')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am > bm or (am == bm and as > bs)
end
-- what a stream holds for its groups: pending entries, and entries after a group's last read
local function stream_held(stream, what, only)
  if redis.call('EXISTS', stream) == 0 then return end
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)[1]
  local groups = redis.call('XINFO', 'GROUPS', stream)
  if last and #groups == 0 then
    held[#held + 1] = redis.call('XLEN', stream) .. ' ' .. what .. ' read by no group yet'
  end
  for _, g in ipairs(groups) do
    local f = {}
    for i = 1, #g, 2 do f[g[i]] = g[i + 1] end
    if only == nil or f['name'] == only then
      if f['pending'] > 0 then
        held[#held + 1] = f['pending'] .. ' ' .. what .. ' pending in group ' .. f['name']
      end
      if last and id_after(last[1], f['last-delivered-id']) then
        held[#held + 1] = what .. ' not yet read by group ' .. f['name']
      end
    end
  end
  return groups
end
local scheduled = redis.call('ZCARD', KEYS[1]) + tonumber(redis.call('HGET', KEYS[#KEYS], 'n') or '0')
if scheduled > 0 then held[#held + 1] = scheduled .. ' scheduled message(s)' end
local groups = stream_held(KEYS[2], 'message(s)', nil) or {}
stream_held(KEYS[#KEYS - 2], 'prioritized message(s)', nil)
local waiting = redis.call('ZCARD', KEYS[#KEYS - 1])
if waiting > 0 then held[#held + 1] = waiting .. ' due message(s) waiting for their fair share' end
local known = {}
for i = 2, #ARGV do
  local name = ARGV[i]
  known[name] = true
  local retries = redis.call('ZCARD', KEYS[3 + 2 * (i - 1)])
  if retries > 0 then held[#held + 1] = retries .. ' retry(ies) scheduled in group ' .. name end
  stream_held(KEYS[4 + 2 * (i - 1)], 'retry(ies)', name)
end
for _, g in ipairs(groups) do
  for i = 1, #g, 2 do
    if g[i] == 'name' and not known[g[i + 1]] then
      held[#held + 1] = 'group ' .. g[i + 1] .. ' appeared during the check'
    end
  end
end
local dead = redis.call('XLEN', KEYS[3])
if dead > 0 then held[#held + 1] = dead .. ' dead letter(s) (replay or purge them)' end
if #held == 0 and ARGV[1] == 'retire' then redis.call('SET', KEYS[4], '1') end
return held
