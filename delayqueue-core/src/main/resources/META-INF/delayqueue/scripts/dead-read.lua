-- Reads dead letters for a dead-letter handler: the handler's own consumer group on the
-- dead-letter stream (created at the stream's start, so dead letters already there are
-- handled too), new entries first; entries another consumer of the group read and left
-- pending longer than ARGV[4] ms are taken over (its JVM died).
-- KEYS[1] dead-letter stream; ARGV[1] group, ARGV[2] consumer, ARGV[3] count, ARGV[4] idle ms
-- Returns the entries: {id, flat fields} each
local ok = pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
local claimed = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[4], '0-0', 'COUNT', ARGV[3])[2]
local out = {}
for _, entry in ipairs(claimed) do
  if entry and entry[2] then out[#out + 1] = entry end
end
if #out > 0 then return out end
local read = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', ARGV[3], 'STREAMS', KEYS[1], '>')
if not read then return {} end
return read[1][2]
