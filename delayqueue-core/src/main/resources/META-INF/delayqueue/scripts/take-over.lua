-- Makes a partition's new owner the holder of every entry pending in the group on its streams:
-- those of the previous owner (crashed, or stopped while handlers outlived its shutdown) and
-- those this consumer left when it gave the partition up. The owner then reads them first, in
-- entry order (XREADGROUP ... 0). JUSTID: delivery counts are left as they are.
-- KEYS the partition's streams; ARGV[1] group, ARGV[2] consumer.
-- Returns {entries claimed}.
local claimed = 0
for _, stream in ipairs(KEYS) do
  local cursor = '0-0'
  repeat
    local ok, reply = pcall(redis.call, 'XAUTOCLAIM', stream, ARGV[1], ARGV[2], 0, cursor, 'COUNT', 100, 'JUSTID')
    if not ok then
      -- no stream or no group yet: nothing pending
      break
    end
    cursor = reply[1]
    claimed = claimed + #reply[2]
  until cursor == '0-0'
end
return {claimed}
