-- Ends one delivery that failed: schedules a retry for the group, or moves the message to the
-- dead-letter stream. Does nothing unless the entry is still pending for this consumer, so a
-- consumer whose lease expired (and the entry went to another consumer) cannot act on it.
-- A message with an expiry (see prelude.lua) whose retry would be due at or after it expires
-- now instead: retries stop at expiry.
-- KEYS[1] the stream the entry came from, KEYS[2] the group's retry ZSET, KEYS[3] dead stream
-- ARGV: group, consumer, entry id, action ('retry'|'dead'|'expire'), retry delay ms, next attempt,
--       message id, envelope, attempts made, error class, error message, wake-up channel, due ms,
--       stack trace (truncated), what an expired message becomes ('dead'|'discard'), the class
--       named by an expired message's dead letter. The error is the failure a retry carries to
--       its next attempt (empty class: none, as for a message held back by a rate limit that
--       had not failed before).
-- Returns {1, the retry's due ms or the dead letter's entry id} when done, {2, the dead letter's
-- entry id or ''} when it expired, {0} when the entry is no longer this consumer's
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return {0} end
-- everything that reads the message comes before the first write: a script that fails halfway
-- keeps its writes, and an acknowledged entry with nothing else done would be lost
local now = dq.now()
local action, class, message = ARGV[4], ARGV[10], ARGV[11]
local expiry = dq.expiry(ARGV[8])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
if action == 'retry' then
  local due = now + tonumber(ARGV[5])
  if expiry == 0 or due < expiry then
    local member = dq.retry_member(ARGV[3], ARGV[6], ARGV[7], ARGV[8], class, message, ARGV[14])
    redis.call('ZADD', KEYS[2], due, member)
    local head = redis.call('ZRANGE', KEYS[2], 0, 0)
    if head[1] == member then redis.call('PUBLISH', ARGV[12], due) end
    return {1, due}
  end
  action = 'expire'
  if class == '' then
    message = 'Expired at ' .. expiry .. ' (epoch ms, Redis clock) before its next attempt was due'
  else
    message = 'Expired at ' .. expiry .. ' (epoch ms, Redis clock) before its next attempt was due; the last '
      .. 'attempt failed with ' .. class .. ': ' .. message
  end
  class = ARGV[16]
end
if action == 'expire' and ARGV[15] == 'discard' then return {2, ''} end
local dead = dq.add_dead(KEYS[3], ARGV[7], ARGV[8], ARGV[1], ARGV[9], class, message, ARGV[13], now,
  ARGV[14])
if action == 'expire' then return {2, dead} end
return {1, dead}
