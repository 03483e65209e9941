-- Reads the consumer groups of a stream (XINFO GROUPS), or none when the stream does not exist,
-- each group's lag checked against the stream (dq.lag, which sets a read counter found wrong
-- right): nil where it is unknown (Redis before 7.0, or a backlog beyond what it counts whose
-- counter cannot be true).
-- KEYS[1] stream
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local groups = redis.call('XINFO', 'GROUPS', KEYS[1])
for _, g in ipairs(groups) do
  local f, at = {}, nil
  for i = 1, #g, 2 do
    f[g[i]] = g[i + 1]
    if g[i] == 'lag' then at = i + 1 end
  end
  if at then g[at] = dq.lag(KEYS[1], f, nil, true) or false end
end
return groups
