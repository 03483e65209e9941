-- Dead letters by error (dq.dead_error: the class, and the reason up to its first digit or quote).
-- KEYS[1] dead stream
-- ARGV[1] 'count': ARGV[2] how many entries to read, newest first; returns class, prefix, count,
--   newest entry id of each error, the most recent first
-- ARGV[1] 'match': ARGV[2] where to start ('-' or '(<entry id>'), ARGV[3] how many entries to
--   read, oldest first, ARGV[4] class, ARGV[5] prefix; returns the last entry id read ('' at the
--   end of the stream), then the entry id and group of each dead letter of that error
if ARGV[1] == 'count' then
  local groups, order = {}, {}
  for _, entry in ipairs(redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', ARGV[2])) do
    local class, prefix = dq.dead_error(entry[2])
    local key = class .. '\n' .. prefix
    local group = groups[key]
    if not group then
      group = { class, prefix, 0, entry[1] }
      groups[key] = group
      order[#order + 1] = group
    end
    group[3] = group[3] + 1
  end
  local out = {}
  for _, group in ipairs(order) do
    for i = 1, 4 do out[#out + 1] = group[i] end
  end
  return out
end
local entries = redis.call('XRANGE', KEYS[1], ARGV[2], '+', 'COUNT', ARGV[3])
local out = { (#entries == tonumber(ARGV[3])) and entries[#entries][1] or '' }
for _, entry in ipairs(entries) do
  local class, prefix = dq.dead_error(entry[2])
  if class == ARGV[4] and prefix == ARGV[5] then
    local _, _, group = dq.read_dead(entry[2])
    out[#out + 1] = entry[1]
    out[#out + 1] = group or ''
  end
end
return out
