-- Pauses or resumes a queue, or one consumer group of it, or sets its rate limit or its
-- concurrency limit, and tells every instance.
-- KEYS[1] the queue's meta hash (partition 0's slot).
-- ARGV[1] 'pause', 'resume', 'rate' or 'concurrency'; ARGV[2] the group, or '' for the whole
-- queue; ARGV[3] the queue's control channel; ARGV[4] ('rate', 'concurrency') the limit as
-- RateLimit.toString or ConcurrencyLimit.toString writes it, or '' to remove it.
-- A rate limit is 'rate-limit' (the whole queue: each group) or an entry '<group>=<limit>' of
-- 'rate-limits' (separated by spaces; a group's own limit wins over the queue's); a
-- concurrency limit likewise 'concurrency-limit' or an entry of 'concurrency-limits'.
-- The state is two fields of the meta hash: 'paused' ('1' while the queue is paused) and
-- 'paused-groups' (the groups paused on their own, sorted, separated by spaces: a group name
-- has none). Only HGET, HSET, HDEL and PUBLISH: the commands of the least-privilege ACL.
-- Idempotent: pausing twice stays paused, resuming twice stays resumed (a flag, not a toggle).
-- Publishes ("<version>\n<paused>\n<paused-groups>\n<rate-limit>\n<rate-limits>\n
-- <concurrency-limit>\n<concurrency-limits>"), and returns ({paused, paused-groups, version,
-- rate-limit, rate-limits, concurrency-limit, concurrency-limits}), the whole state after the
-- change, so that a listener applies the state it receives. The last two lines are published
-- only when a concurrency limit is set: an instance of a release before them reads a 7-line
-- notification as unknown, and follows the state at its next poll.
-- rewrites a space-separated list of '<name>' or '<name>=<value>' entries: the entry of name
-- dropped, then added as 'entry' unless that is nil
local function rewrite(field, name, entry)
  local kept = {}
  for item in string.gmatch(redis.call('HGET', KEYS[1], field) or '', '%S+') do
    local key = string.match(item, '^([^=]+)')
    if key ~= name then kept[#kept + 1] = item end
  end
  if entry then kept[#kept + 1] = entry end
  table.sort(kept)
  if #kept == 0 then
    redis.call('HDEL', KEYS[1], field)
  else
    redis.call('HSET', KEYS[1], field, table.concat(kept, ' '))
  end
end
if ARGV[1] == 'rate' or ARGV[1] == 'concurrency' then
  local field = ARGV[1] .. '-limit'
  if ARGV[2] == '' then
    if ARGV[4] == '' then redis.call('HDEL', KEYS[1], field) else redis.call('HSET', KEYS[1], field, ARGV[4]) end
  else
    rewrite(field .. 's', ARGV[2], (ARGV[4] ~= '') and (ARGV[2] .. '=' .. ARGV[4]) or nil)
  end
elseif ARGV[2] == '' then
  if ARGV[1] == 'pause' then
    redis.call('HSET', KEYS[1], 'paused', '1')
  else
    redis.call('HDEL', KEYS[1], 'paused')
  end
else
  local groups = {}
  local present = false
  for group in string.gmatch(redis.call('HGET', KEYS[1], 'paused-groups') or '', '%S+') do
    if group == ARGV[2] then
      present = true
      if ARGV[1] == 'pause' then
        groups[#groups + 1] = group
      end
    else
      groups[#groups + 1] = group
    end
  end
  if ARGV[1] == 'pause' and not present then
    groups[#groups + 1] = ARGV[2]
  end
  table.sort(groups)
  if #groups == 0 then
    redis.call('HDEL', KEYS[1], 'paused-groups')
  else
    redis.call('HSET', KEYS[1], 'paused-groups', table.concat(groups, ' '))
  end
end
-- every change bumps 'control-version': a listener applies a state only if it is not older
-- than the one it applied, so a read that raced a change cannot undo it
local version = tonumber(redis.call('HGET', KEYS[1], 'control-version') or '0') + 1
redis.call('HSET', KEYS[1], 'control-version', version)
local state = {redis.call('HGET', KEYS[1], 'paused') or '', redis.call('HGET', KEYS[1], 'paused-groups') or '',
  tostring(version), redis.call('HGET', KEYS[1], 'rate-limit') or '', redis.call('HGET', KEYS[1], 'rate-limits') or '',
  redis.call('HGET', KEYS[1], 'concurrency-limit') or '', redis.call('HGET', KEYS[1], 'concurrency-limits') or ''}
local lines = {state[3], state[1], state[2], state[4], state[5]}
if state[6] ~= '' or state[7] ~= '' then
  lines[6] = state[6]
  lines[7] = state[7]
end
redis.call('PUBLISH', ARGV[3], table.concat(lines, '\n'))
return state
