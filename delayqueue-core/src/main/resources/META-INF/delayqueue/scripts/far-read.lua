-- Reads the far tier (dq.far_open): one message by id (its page), the slots, or whether entries
-- are live (the caller reads the slots' page streams itself, 1,000 entries per XREVRANGE).
-- KEYS[1] far ZSET, KEYS[2] far-state HASH
-- ARGV[1] 'find': ARGV[2] the id; returns {due, envelope}, or {} when it is not in the far tier
-- ARGV[1] 'slots': ARGV[2] the least slot start (epoch ms), ARGV[3] how many slots to skip,
--   ARGV[4] how many to return; returns slot start, last page pairs in start order
-- ARGV[1] 'live': then id, due, page triples of entries read from the slots' page streams;
--   returns 1 for each the index holds with that due time and page (not cancelled or replaced),
--   else 0
local far = dq.far_open(KEYS[1], KEYS[2])
if ARGV[1] == 'find' then
  local due, score = dq.far_due(far, ARGV[2])
  if not due then return {} end
  local env = dq.far_envelope(far, ARGV[2], score)
  if not env then return {} end
  return {due, env}
end
if ARGV[1] == 'slots' then
  if far.n == 0 then return {} end
  local slots = redis.call('ZRANGE', KEYS[1], ARGV[2], '+inf', 'BYSCORE', 'LIMIT', ARGV[3], ARGV[4])
  local out = {}
  for _, slot in ipairs(slots) do
    out[#out + 1] = slot
    out[#out + 1] = dq.far_last_page(far, tonumber(slot))
  end
  return out
end
-- 'live'
local out = {}
for i = 2, #ARGV, 3 do
  local _, score = dq.far_due(far, ARGV[i])
  out[#out + 1] = (score and dq.far_is(score, tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]))) and 1 or 0
end
return out
