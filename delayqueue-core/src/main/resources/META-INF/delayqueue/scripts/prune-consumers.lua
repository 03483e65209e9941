-- Removes the consumers of a group that hold nothing and were idle longer than a limit (their
-- container crashed or was killed): XINFO CONSUMERS lists only live ones then. A consumer that
-- holds entries is never removed (XGROUP DELCONSUMER would drop its pending entries).
-- KEYS: the streams the group reads; ARGV[1] group, ARGV[2] this consumer (kept), ARGV[3] idle ms
-- Returns the number of consumers removed
local removed = 0
local limit = tonumber(ARGV[3])
for _, key in ipairs(KEYS) do
  local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', key, ARGV[1])
  -- a stream or group that does not exist yet has nothing to remove; any other error is raised
  if not ok then
    local reason = tostring(consumers.err or consumers)
    if not (string.find(reason, 'NOGROUP', 1, true) or string.find(reason, 'no such key', 1, true)) then
      error(consumers)
    end
  end
  if ok then
    for _, c in ipairs(consumers) do
      local info = {}
      for i = 1, #c, 2 do info[c[i]] = c[i + 1] end
      if info['name'] ~= ARGV[2] and tonumber(info['pending']) == 0 and tonumber(info['idle']) > limit then
        redis.call('XGROUP', 'DELCONSUMER', key, ARGV[1], info['name'])
        removed = removed + 1
      end
    end
  end
end
return {removed}
