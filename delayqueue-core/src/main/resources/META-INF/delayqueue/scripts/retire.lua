-- Checks that an old partition, left by a change of the queue's partition count, holds
-- nothing any more, and retires it when asked: sends to it are then refused, so nothing can
-- arrive where no consumer reads. Each consumer group on the partition's streams must have
-- read every entry and settled it; no message may wait in its schedule, its retry schedules
-- or its dead letters.
-- KEYS[1] delayed ZSET, KEYS[2] stream, KEYS[3] dead-letter stream, KEYS[4] retired marker
-- ARGV[1] 'check' or 'retire', ARGV[2] the partition's key prefix ('<prefix>:{<tag>}:'), for
-- the retry keys of the groups found on its stream
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
local scheduled = redis.call('ZCARD', KEYS[1])
if scheduled > 0 then held[#held + 1] = scheduled .. ' scheduled message(s)' end
local groups = stream_held(KEYS[2], 'message(s)', nil) or {}
for _, g in ipairs(groups) do
  local name
  for i = 1, #g, 2 do if g[i] == 'name' then name = g[i + 1] end end
  local retries = redis.call('ZCARD', ARGV[2] .. 'retry-delayed:' .. name)
  if retries > 0 then held[#held + 1] = retries .. ' retry(ies) scheduled in group ' .. name end
  stream_held(ARGV[2] .. 'retry:' .. name, 'retry(ies)', name)
end
local dead = redis.call('XLEN', KEYS[3])
if dead > 0 then held[#held + 1] = dead .. ' dead letter(s) (replay or purge them)' end
if #held == 0 and ARGV[1] == 'retire' then redis.call('SET', KEYS[4], '1') end
return held
