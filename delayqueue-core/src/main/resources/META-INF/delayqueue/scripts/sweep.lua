-- The slow sweep of a partition for one group, run by one instance per period (the lock):
-- removes the consumers that hold nothing and were idle longer than a limit, and names the consumers that hold entries (the caller checks
-- that each heartbeats; one that does not is of a release before heartbeats).
-- KEYS[1] the sweep lock, KEYS[2..] the streams the group reads
-- ARGV[1] group, ARGV[2] this consumer (kept), ARGV[3] idle ms, ARGV[4] lock ms
-- ARGV[5] 'release' (the container stops: its lock, if it holds it, is removed) or 'sweep'
-- Returns {0} when another instance swept within the period, else {1, removed, holder...}
if ARGV[5] == 'release' then
  if redis.call('GET', KEYS[1]) == ARGV[2] then redis.call('DEL', KEYS[1]) end
  return {0}
end
if not redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[4]) then return {0} end
local removed = 0
local holders = {}
local limit = tonumber(ARGV[3])
for k = 2, #KEYS do
  local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', KEYS[k], ARGV[1])
  if not ok then
    local reason = tostring(consumers.err or consumers)
    if not (string.find(reason, 'NOGROUP', 1, true) or string.find(reason, 'no such key', 1, true)) then
      error(consumers)
    end
  else
    for _, c in ipairs(consumers) do
      local info = {}
      for i = 1, #c, 2 do info[c[i]] = c[i + 1] end
      if info['name'] ~= ARGV[2] then
        if tonumber(info['pending']) > 0 then
          holders[#holders + 1] = info['name']
        elseif tonumber(info['idle']) > limit then
          redis.call('XGROUP', 'DELCONSUMER', KEYS[k], ARGV[1], info['name'])
          removed = removed + 1
        end
      end
    end
  end
end
local out = {1, removed}
for _, h in ipairs(holders) do out[#out + 1] = h end
return out
