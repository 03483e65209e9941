-- Reads the far tier (dq.far_open): one message by id (its page), the nodes, or whether entries
-- are live (the caller reads the nodes' page streams itself, 1,000 entries per XREVRANGE).
-- KEYS[1] far ZSET, KEYS[2] far-state HASH
-- ARGV[1] 'find': ARGV[2] the id; returns {due, envelope}, or {} when it is not in the far tier
-- ARGV[1] 'slots': ARGV[2] the least node start (epoch ms), ARGV[3] how many nodes to skip,
--   ARGV[4] how many to return; returns start, member, level, last page, end (dq.far_end) of each
--   node in start order (dq.far_add)
-- ARGV[1] 'live': then id, due, page number (level + page) triples of entries read from the
--   nodes' page streams;
--   returns 1 for each the index holds with that due time and page (not cancelled or replaced),
--   else 0
-- ARGV[1] 'before': ARGV[2] a time (epoch ms), ARGV[3] how many index buckets to read at most;
--   returns how many far-tier messages are due before it, 1 when exact (0: estimated from that
--   many buckets, dq.far_before), and how many the far tier holds
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
  local nodes = redis.call('ZRANGE', KEYS[1], ARGV[2], '+inf', 'BYSCORE', 'LIMIT', ARGV[3], ARGV[4], 'WITHSCORES')
  local out = {}
  for i = 1, #nodes, 2 do
    out[#out + 1] = nodes[i + 1]
    out[#out + 1] = nodes[i]
    out[#out + 1] = dq.far_level(nodes[i])
    out[#out + 1] = dq.far_last_page(far, nodes[i])
    out[#out + 1] = string.format('%d', dq.far_end(far, nodes[i]))
  end
  return out
end
if ARGV[1] == 'before' then
  local before, exact = dq.far_before(far, tonumber(ARGV[2]), tonumber(ARGV[3]))
  return {before, exact and 1 or 0, far.n}
end
-- 'live'
local out = {}
for i = 2, #ARGV, 3 do
  local _, score = dq.far_due(far, ARGV[i])
  out[#out + 1] = (score and dq.far_is(score, tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]))) and 1 or 0
end
return out
