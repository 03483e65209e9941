-- Claims entries whose lease expired (idle longer than the visibility timeout: their consumer
-- died or hung) for this consumer. XCLAIM with the same min-idle time makes two consumers
-- recovering at once take each entry once.
-- KEYS[1] stream; ARGV[1] group, ARGV[2] consumer, ARGV[3] min idle ms, ARGV[4] max count,
-- ARGV[5..] entry ids this consumer still holds (never claimed back by it)
-- Returns per claimed entry: {entry id, fields, deliveries so far including this one}
local held = {}
for i = 5, #ARGV do held[ARGV[i]] = true end
-- a stream or group not created yet (a container's first pass runs at its start) has nothing
local ok, pending = pcall(redis.call, 'XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[3], '-', '+',
  tonumber(ARGV[4]) + #ARGV - 4)
if not ok then
  local reason = tostring(pending.err or pending)
  if string.find(reason, 'NOGROUP', 1, true) or string.find(reason, 'no such key', 1, true) then return {} end
  error(pending)
end
local out = {}
for _, p in ipairs(pending) do
  if not held[p[1]] and #out < tonumber(ARGV[4]) then
    local claimed = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], p[1])
    if claimed[1] then
      out[#out + 1] = {claimed[1][1], claimed[1][2], p[4] + 1}
    end
  end
end
return out
