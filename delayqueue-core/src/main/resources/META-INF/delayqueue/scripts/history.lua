-- Adds one engine's counts of a minute to a queue's history, at three resolutions: the
-- minute (for the last hour), its quarter hour (the last day) and its hour (the last week).
-- Every engine adds its own counts, so the history is the whole cluster's.
-- KEYS[1] the HASH of one hour's minutes, KEYS[2] the HASH of one day's quarters and hours
-- ARGV[1] the minute's field (0-59), ARGV[2] the quarter's field (q0-q95), ARGV[3] the hour's
-- field (h0-h23), ARGV[4] KEYS[1]'s time to live in seconds, ARGV[5] KEYS[2]'s
-- ARGV[6..] the counts, added element by element to what the fields hold (comma-separated)
local counts = {}
for i = 6, #ARGV do counts[#counts + 1] = tonumber(ARGV[i]) end
local function add(key, field)
  local old = redis.call('HGET', key, field)
  local sums = {}
  for i = 1, #counts do sums[i] = counts[i] end
  if old then
    local i = 1
    for value in string.gmatch(old, '[^,]+') do
      if i <= #sums then sums[i] = sums[i] + tonumber(value) else sums[i] = tonumber(value) end
      i = i + 1
    end
  end
  -- trailing zeros are left out: most minutes have few lateness buckets
  local last = #sums
  while last > 1 and sums[last] == 0 do last = last - 1 end
  local parts = {}
  for i = 1, last do parts[i] = string.format('%d', sums[i]) end
  redis.call('HSET', key, field, table.concat(parts, ','))
end
add(KEYS[1], ARGV[1])
add(KEYS[2], ARGV[2])
add(KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return {1}
