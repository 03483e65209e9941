-- Removes this consumer from its group on a clean stop, from each stream where it holds nothing
-- (a handler that outlived the shutdown keeps it until recovery prunes it).
-- KEYS: the streams the group reads; ARGV[1] group, ARGV[2] consumer
-- Returns the number of streams it was removed from
local removed = 0
for _, key in ipairs(KEYS) do
  local ok, mine = pcall(redis.call, 'XPENDING', key, ARGV[1], '-', '+', 1, ARGV[2])
  -- a stream or group that does not exist yet has nothing to remove; any other error is raised
  if not ok and not string.find(tostring(mine.err or mine), 'NOGROUP', 1, true) then error(mine) end
  if ok and #mine == 0 then
    redis.call('XGROUP', 'DELCONSUMER', key, ARGV[1], ARGV[2])
    removed = removed + 1
  end
end
return {removed}
