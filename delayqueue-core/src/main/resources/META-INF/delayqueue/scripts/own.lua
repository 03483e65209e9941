-- Takes, renews or gives up the lease of a group on one partition of a queue.
-- KEYS[1] the partition's owner key for the group. ARGV[1] consumer, ARGV[2] lease ms,
-- ARGV[3] 'take', 'renew' or 'release'.
-- Returns {1} renewed (this consumer owns it), {2} taken now (it was free), {0, owner} owned by
-- another ({0} when free and not taken: a 'renew' of a lease that expired), {0} after 'release'.
local owner = redis.call('GET', KEYS[1])
if ARGV[3] == 'release' then
  if owner == ARGV[1] then redis.call('DEL', KEYS[1]) end
  return {0}
end
if owner == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1}
end
if not owner then
  if ARGV[3] == 'take' then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return {2}
  end
  return {0}
end
return {0, owner}
