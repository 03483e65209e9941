-- The prelude of every delayqueue script, put before it when the scripts are loaded.
-- WireFormat.java owns the field names and formats filled in below ({{...}}).
local dq = {}
dq.MAX_DUE = {{MAX_DUE}}
-- Redis now: epoch ms rounded down, epoch ms rounded up (a delay counts from it, so that
-- nothing is ever early), epoch microseconds
function dq.now()
  local t = redis.call('TIME')
  local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local up = ms
  if tonumber(t[2]) % 1000 > 0 then up = ms + 1 end
  return ms, up, tonumber(t[1]) * 1000000 + tonumber(t[2])
end
-- a due time from kind 'd' (a delay in ms from now) or 'a' (absolute epoch ms): a positive
-- delay ends by MAX_DUE (the client checks that by its clock; this catches its skew)
function dq.due(kind, value, now, nowUp)
  if kind ~= 'd' then return value end
  if value > 0 then return math.min(nowUp + value, dq.MAX_DUE) end
  return now
end
-- Expiry (Envelope.java): an envelope whose first byte is 2 or 4 holds 13 ASCII digits after it:
-- while scheduled, the time to live in ms counted from the due time; once due, the epoch ms
-- (Redis clock) at which it expires; zeros for none.
local function has_expiry(envelope)
  local version = string.byte(envelope, 1)
  return version == 2 or version == 4
end
-- the envelope of a message becoming due: its time to live turned into its expiry
function dq.start_expiry(envelope, due)
  if not has_expiry(envelope) then return envelope end
  local ttl = tonumber(string.sub(envelope, 2, 14))
  if ttl == 0 then return envelope end
  return string.sub(envelope, 1, 1) .. string.format('%013d', math.min(tonumber(due) + ttl, 9999999999999))
    .. string.sub(envelope, 15)
end
-- the expiry of a due message's envelope, epoch ms, or 0 for none
function dq.expiry(envelope)
  if not has_expiry(envelope) then return 0 end
  return tonumber(string.sub(envelope, 2, 14))
end
-- the envelope without its expiry (a replayed dead letter is delivered whatever its age)
function dq.clear_expiry(envelope)
  if not has_expiry(envelope) then return envelope end
  return string.sub(envelope, 1, 1) .. '0000000000000' .. string.sub(envelope, 15)
end
-- adds a message ready for delivery to a stream: the queue's, or a group's retry stream
function dq.add_ready(stream, id, envelope, due, attempt)
  return redis.call('XADD', stream, '*', '{{ID}}', id, '{{ENVELOPE}}', envelope, '{{DUE}}', due,
    '{{ATTEMPT}}', attempt)
end
-- a retry schedule member: <origin entry id>:<attempt>:<id byte length>:<id><envelope>
function dq.retry_member(origin, attempt, id, envelope)
  return origin .. ':' .. attempt .. ':' .. string.len(id) .. ':' .. id .. envelope
end
-- reads a retry schedule member: id, envelope, attempt
function dq.read_retry_member(m)
  local c0 = string.find(m, ':', 1, true)
  local c1 = string.find(m, ':', c0 + 1, true)
  local c2 = string.find(m, ':', c1 + 1, true)
  local len = tonumber(string.sub(m, c1 + 1, c2 - 1))
  return string.sub(m, c2 + 1, c2 + len), string.sub(m, c2 + len + 1), string.sub(m, c0 + 1, c1 - 1)
end
-- adds a dead letter to a queue's dead-letter stream
function dq.add_dead(stream, id, envelope, group, attempts, class, message, due, now, trace)
  return redis.call('XADD', stream, '*', '{{ID}}', id, '{{ENVELOPE}}', envelope, '{{GROUP}}', group,
    '{{ATTEMPT}}', attempts, '{{ERROR_CLASS}}', class, '{{ERROR_MESSAGE}}', message, '{{DUE}}', due,
    '{{DEAD_TIME}}', now, '{{STACK_TRACE}}', trace)
end
-- reads a dead letter's fields: id, envelope, group
function dq.read_dead(flat)
  local f = {}
  for i = 1, #flat, 2 do f[flat[i]] = flat[i + 1] end
  return f['{{ID}}'], f['{{ENVELOPE}}'], f['{{GROUP}}']
end
