-- Trims a stream up to the oldest entry some consumer group still needs: the smallest pending
-- entry or the last delivered one, whichever is older. Never removes an unacknowledged or
-- undelivered entry; a stream without groups is left alone.
-- KEYS[1] stream
-- Returns the number of entries removed
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local function older(a, b)
  if a == nil then return b end
  if b == nil then return a end
  local am, as = string.match(a, '(%d+)-(%d+)')
  local bm, bs = string.match(b, '(%d+)-(%d+)')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  if am < bm or (am == bm and as < bs) then return a end
  return b
end
local groups = redis.call('XINFO', 'GROUPS', KEYS[1])
if #groups == 0 then return 0 end
local keep = nil
for _, g in ipairs(groups) do
  local name, last
  for i = 1, #g, 2 do
    if g[i] == 'name' then name = g[i + 1] elseif g[i] == 'last-delivered-id' then last = g[i + 1] end
  end
  local candidate = last
  local summary = redis.call('XPENDING', KEYS[1], name)
  if summary[1] > 0 then candidate = older(summary[2], candidate) end
  keep = older(keep, candidate)
end
return redis.call('XTRIM', KEYS[1], 'MINID', keep)
