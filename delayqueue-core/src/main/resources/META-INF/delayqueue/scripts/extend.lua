-- Renews the leases of entries this consumer is still processing (resets their idle time without
-- counting a delivery). Entries that moved to another consumer are left alone and returned.
-- KEYS[1] stream; ARGV[1] group, ARGV[2] consumer, ARGV[3..] entry ids
-- Returns the entry ids that are no longer this consumer's
local lost = {}
for i = 3, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if #p > 0 and p[1][2] == ARGV[2] then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return lost
