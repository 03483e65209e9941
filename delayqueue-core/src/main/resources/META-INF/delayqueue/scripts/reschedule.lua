-- Moves a scheduled message to a new due time (or to the stream when that time has come and
-- no other message due as early or earlier still waits in the schedule: the stream keeps due
-- order). A new time compactAfter or more ahead puts it in the far tier, a nearer one in the
-- schedule, wherever it was.
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream, KEYS[4] urgent stream (messages with a
-- priority), KEYS[5] far ZSET, KEYS[6] far-state HASH
-- ARGV[1] message id, ARGV[2] kind ('d' delay ms | 'a' absolute epoch ms), ARGV[3] value, ARGV[4]
-- wake channel, ARGV[5] '<compactAfter ms>:<slot minimum>' (0: no far tier; dq.compact)
-- Returns {1, due} when it was scheduled, {0, -1} otherwise
local id = ARGV[1]
local compact, farMin = dq.compact(ARGV[5])
local inSchedule = redis.call('ZSCORE', KEYS[1], id)
local far = nil
local env = nil
if not inSchedule then
  far = dq.far_open(KEYS[5], KEYS[6])
  local old, score = dq.far_due(far, id)
  if not old then return {0, -1} end
  env = dq.far_envelope(far, id, score)
  -- an index entry without its stream entry is not written by any script: left alone
  if not env then return {0, -1} end
  dq.far_remove(far, id)
end
local now, nowUp = dq.now()
local due = dq.due(ARGV[2], tonumber(ARGV[3]), now, nowUp)
if compact > 0 and due - now >= compact
    and dq.far_wants(far or dq.far_open(KEYS[5], KEYS[6]), KEYS[1], due, math.floor(compact / 2), farMin) then
  if inSchedule then
    env = redis.call('HGET', KEYS[2], id)
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
  end
  far = far or dq.far_open(KEYS[5], KEYS[6])
  dq.far_add(far, id, env, due, math.floor(compact / 2))
  dq.far_close(far)
  return {1, due}
end
if far then
  dq.far_close(far)
  redis.call('HSET', KEYS[2], id, env)
  redis.call('ZADD', KEYS[1], due, id)
end
local earlier = redis.call('ZRANGE', KEYS[1], '-inf', due, 'BYSCORE', 'LIMIT', 0, 2)
local alone = #earlier == 0 or (#earlier == 1 and earlier[1] == id)
if due <= now and alone then
  env = env or redis.call('HGET', KEYS[2], id)
  dq.add_ready(dq.ready_stream(env, KEYS[3], KEYS[4]), id, dq.start_expiry(env, due), due, 1)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
else
  redis.call('ZADD', KEYS[1], 'XX', due, id)
  local head = redis.call('ZRANGE', KEYS[1], 0, 0)
  if head[1] == id or due <= now then redis.call('PUBLISH', ARGV[4], due) end
end
return {1, due}
