-- Moves due messages (by the Redis clock) from the delayed ZSET to the stream, and due retries
-- of the given groups from their retry ZSETs to their retry streams, at most ARGV[1] per source.
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream,
-- then pairs KEYS[k] retry ZSET of a group, KEYS[k+1] retry stream of that group
-- Returns {moved, next due epoch ms or -1, Redis now epoch ms, 1 if a source hit the limit else 0,
--          Redis now epoch microseconds (for a sleep that ends right at the next due millisecond)}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local moved, full, nextDue = 0, 0, -1
-- the head of a schedule: its earliest score, or nil when empty
local function head(key)
  local h = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if h[2] then return tonumber(h[2]) end
  return nil
end
local function earliest(score)
  if score and (nextDue < 0 or score < nextDue) then nextDue = score end
end
-- an idle source costs one ZRANGE: the range query runs only when its head is due
local function dueMembers(key)
  local first = head(key)
  if first == nil or first > now then
    earliest(first)
    return nil
  end
  return redis.call('ZRANGE', key, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES')
end
local due = dueMembers(KEYS[1]) or {}
for i = 1, #due, 2 do
  local id = due[i]
  local env = redis.call('HGET', KEYS[2], id)
  if env then
    redis.call('XADD', KEYS[3], '*', 'i', id, 'e', env, 'd', due[i + 1], 'a', 1)
    redis.call('HDEL', KEYS[2], id)
  end
  redis.call('ZREM', KEYS[1], id)
  moved = moved + 1
end
if #due >= limit * 2 then full = 1 end
if #due > 0 then earliest(head(KEYS[1])) end
for k = 4, #KEYS, 2 do
  local retries = dueMembers(KEYS[k]) or {}
  for i = 1, #retries, 2 do
    -- member: <origin entry id>:<attempt>:<id byte length>:<id><envelope>
    local m = retries[i]
    local c0 = string.find(m, ':', 1, true)
    local c1 = string.find(m, ':', c0 + 1, true)
    local c2 = string.find(m, ':', c1 + 1, true)
    local len = tonumber(string.sub(m, c1 + 1, c2 - 1))
    redis.call('XADD', KEYS[k + 1], '*', 'i', string.sub(m, c2 + 1, c2 + len),
      'e', string.sub(m, c2 + len + 1), 'd', retries[i + 1], 'a', string.sub(m, c0 + 1, c1 - 1))
    redis.call('ZREM', KEYS[k], m)
    moved = moved + 1
  end
  if #retries >= limit * 2 then full = 1 end
  if #retries > 0 then earliest(head(KEYS[k])) end
end
return {moved, nextDue, now, full, tonumber(t[1]) * 1000000 + tonumber(t[2])}
