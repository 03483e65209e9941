-- delayqueue producer protocol v1: send.lua, generated from scripts/prelude.lua and scripts/send.lua; do not edit (docs/protocol.md)
-- The prelude of every delayqueue script, put before it when the scripts are loaded.
-- WireFormat.java owns the field names and formats filled in below ({{...}}).
local dq = {}
dq.MAX_DUE = 253402300799999
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
-- Expiry (Envelope.java): an envelope whose first byte is even (2, 4, 6, 8: version 1 + a bit
-- field, 1 expiry, 2 key, 4 priority) holds 13 ASCII digits after it: while scheduled, the time
-- to live in ms counted from the due time; once due, the epoch ms (Redis clock) at which it
-- expires; zeros for none.
-- The bit field of an envelope (0 to 7), or nil for bytes that are no envelope (an empty one,
-- or an entry another program wrote): such bytes are moved and dead-lettered as they are,
-- never an error halfway through a script.
local function envelope_bits(envelope)
  local b = string.byte(envelope, 1)
  if b == nil or b < 1 or b > 8 then return nil end
  return b - 1
end
local function has_expiry(envelope)
  local bits = envelope_bits(envelope)
  return bits ~= nil and bits % 2 == 1
end
-- the stream a due message goes to: the urgent stream for a message with a priority (versions
-- 5 to 8: one ASCII digit, 1 to 9, after the expiry digits), else the queue's stream
function dq.ready_stream(envelope, stream, urgent)
  local bits = envelope_bits(envelope)
  if bits ~= nil and bits >= 4 then return urgent end
  return stream
end
-- the envelope of a message becoming due: its time to live turned into its expiry
function dq.start_expiry(envelope, due)
  if not has_expiry(envelope) then return envelope end
  local ttl = tonumber(string.sub(envelope, 2, 14))
  if ttl == nil or ttl == 0 then return envelope end
  return string.sub(envelope, 1, 1) .. string.format('%013d', math.min(tonumber(due) + ttl, 9999999999999))
    .. string.sub(envelope, 15)
end
-- the expiry of a due message's envelope, epoch ms, or 0 for none
function dq.expiry(envelope)
  if not has_expiry(envelope) then return 0 end
  return tonumber(string.sub(envelope, 2, 14)) or 0
end
-- the envelope without its expiry (a replayed dead letter is delivered whatever its age)
function dq.clear_expiry(envelope)
  if not has_expiry(envelope) then return envelope end
  return string.sub(envelope, 1, 1) .. '0000000000000' .. string.sub(envelope, 15)
end
-- adds one to a counter field of a hash and returns it (HGET and HSET: the least-privilege ACL
-- of docs/operations.md has no HINCRBY)
function dq.increment(hash, field)
  local value = tonumber(redis.call('HGET', hash, field) or '0') + 1
  redis.call('HSET', hash, field, value)
  return value
end
-- the key of a message (Envelope.java: after the version byte, the expiry digits and the
-- priority digit, a varint length and the UTF-8 bytes), or nil when its sender set none
function dq.key_of(envelope)
  local bits = envelope_bits(envelope)
  if bits == nil or math.floor(bits / 2) % 2 == 0 then return nil end
  local pos = 2
  if bits % 2 == 1 then pos = pos + 13 end
  if bits >= 4 then pos = pos + 1 end
  local len, scale, b = 0, 1, 128
  while b >= 128 do
    b = string.byte(envelope, pos)
    if b == nil then return nil end
    pos = pos + 1
    len = len + (b % 128) * scale
    scale = scale * 128
  end
  return string.sub(envelope, pos, pos + len - 1)
end
-- Fair share (docs/fairness.md). In a fair-share queue a due message without a priority
-- waits in its partition's fair ZSET before the stream, at a virtual time: its key's last
-- virtual time or the queue's clock (the virtual time of the last message moved to the
-- stream), whichever is later, plus one; so the keys with waiting messages take turns, each
-- key's messages in their due order. A member is '<sequence>:<due>:<id length>:<id><envelope>'
-- (the sequence, 12 digits at least, orders the members of one virtual time by arrival; the
-- envelope as it goes to the stream). The fair-state hash holds 'clock', 'seq' (the last
-- sequence) and, per key with waiting messages, 'k:<key>' ('none' for messages without a
-- key): its last virtual time. A script reads the state once (dq.fair_open), works on it, and
-- writes it back once (dq.fair_close).
local function fair_field(envelope)
  local key = dq.key_of(envelope)
  if key then return 'k:' .. key end
  return 'none'
end
function dq.fair_open(state)
  local v = redis.call('HMGET', state, 'clock', 'seq')
  return {state = state, clock = tonumber(v[1] or '0'), seq = tonumber(v[2] or '0'), last = {}, changed = {}}
end
-- a key's last virtual time, 0 for none
local function fair_last(f, field)
  local last = f.last[field]
  if last == nil then
    last = tonumber(redis.call('HGET', f.state, field) or '0')
    f.last[field] = last
  end
  return last
end
function dq.hold_fair(f, fair, id, envelope, due)
  local field = fair_field(envelope)
  local at = math.max(fair_last(f, field), f.clock) + 1
  f.last[field] = at
  f.changed[field] = true
  f.seq = f.seq + 1
  f.dirty = true
  redis.call('ZADD', fair, at, string.format('%012d', f.seq) .. ':' .. due .. ':' .. string.len(id) .. ':' .. id
    .. envelope)
end
-- moves up to room (at most 1000) waiting messages to the stream, in virtual time; returns
-- how many
function dq.fill_fair(f, fair, stream, room)
  room = math.min(room, 1000)
  if room <= 0 then return 0 end
  local members = redis.call('ZRANGE', fair, 0, room - 1, 'WITHSCORES')
  if #members == 0 then return 0 end
  local moved = {}
  for i = 1, #members, 2 do
    local m, at = members[i], tonumber(members[i + 1])
    moved[#moved + 1] = m
    local c0 = string.find(m, ':', 1, true)
    local c1 = string.find(m, ':', c0 + 1, true)
    local c2 = string.find(m, ':', c1 + 1, true)
    local len = tonumber(string.sub(m, c1 + 1, c2 - 1))
    local envelope = string.sub(m, c2 + len + 1)
    dq.add_ready(stream, string.sub(m, c2 + 1, c2 + len), envelope, string.sub(m, c0 + 1, c1 - 1), 1)
    local field = fair_field(envelope)
    if fair_last(f, field) <= at then
      -- the key's last waiting message: its turn state goes
      f.last[field] = 0
      f.changed[field] = true
    end
    f.clock = at
  end
  redis.call('ZREM', fair, unpack(moved))
  f.dirty = true
  return #moved
end
function dq.fair_close(f)
  if not f.dirty then return end
  local set, gone = {'clock', f.clock, 'seq', f.seq}, {}
  for field in pairs(f.changed) do
    if f.last[field] == 0 then
      gone[#gone + 1] = field
    else
      set[#set + 1] = field
      set[#set + 1] = f.last[field]
    end
  end
  -- in slices: unpack takes a few thousand values at most, and a batch may touch more keys
  for i = 1, #set, 1000 do redis.call('HSET', f.state, unpack(set, i, math.min(i + 999, #set))) end
  for i = 1, #gone, 1000 do redis.call('HDEL', f.state, unpack(gone, i, math.min(i + 999, #gone))) end
end
-- The entries of a stream that a group has yet to read (f: the group's fields of XINFO GROUPS).
-- Redis's lag counter (Redis 7.0+) is not to be trusted alone: a replica advances a group's
-- last-delivered id as the master's reads arrive but keeps its read counter (entries-read) as it
-- was, so a failover (or a partial resynchronization after one) can leave the counter behind for
-- good, and Redis then reports a lag of thousands with nothing unread. So the unread entries are
-- counted, up to cap (default dq.LAG_PROBE; no more than Redis's lag when that is smaller, so a
-- small lag costs a small range): a count within that is exact, and a counter found wrong is set
-- right when `repair` (XGROUP SETID ... ENTRIESREAD, the same last id; skipped where the user may
-- not). Beyond cap: Redis's lag where it can be true (over cap, within the stream's length),
-- else nil (unknown).
dq.LAG_PROBE = 32
function dq.lag(stream, f, cap, repair)
  cap = cap or dq.LAG_PROBE
  local lag = f['lag'] and tonumber(f['lag']) or nil
  local from = '(' .. f['last-delivered-id']
  local probe = (lag and lag < cap) and lag or cap
  local n = #redis.call('XRANGE', stream, from, '+', 'COUNT', probe + 1)
  if n > probe and probe < cap then
    -- more than Redis's lag: count up to cap
    probe = cap
    n = #redis.call('XRANGE', stream, from, '+', 'COUNT', probe + 1)
  end
  if n <= probe then
    if repair and lag and lag ~= n then
      local info = redis.call('XINFO', 'STREAM', stream)
      for i = 1, #info, 2 do
        if info[i] == 'entries-added' then
          pcall(redis.call, 'XGROUP', 'SETID', stream, f['name'], f['last-delivered-id'], 'ENTRIESREAD',
            info[i + 1] - n)
        end
      end
    end
    return n
  end
  if lag and lag > cap and lag <= redis.call('XLEN', stream) then return lag end
  return nil
end
-- the fields of each group of a stream (XINFO GROUPS), none when the stream does not exist
function dq.groups(stream)
  if redis.call('EXISTS', stream) == 0 then return {} end
  local groups = {}
  for _, g in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local f = {}
    for i = 1, #g, 2 do f[g[i]] = g[i + 1] end
    groups[#groups + 1] = f
  end
  return groups
end
-- the entries of a stream that a group (nil: the group furthest ahead) has yet to read, counted
-- up to cap (dq.lag: more is cap + 1); a stream without a group: its length
function dq.unread(stream, group, cap)
  if redis.call('EXISTS', stream) == 0 then return 0 end
  local groups = dq.groups(stream)
  if #groups == 0 then return redis.call('XLEN', stream) end
  local least = nil
  for _, f in ipairs(groups) do
    if group == nil or f['name'] == group then
      local lag = dq.lag(stream, f, cap)
      if lag == nil or lag > cap then lag = cap + 1 end
      if least == nil or lag < least then least = lag end
    end
  end
  return least or 0
end
-- Bulk commands: one command for many members or fields costs Redis far less than one per
-- message. Cut into slices of dq.BULK arguments (even, for score-member pairs): unpack is
-- bounded by Lua's C stack.
dq.BULK = 1000
function dq.bulk(command, key, args)
  for i = 1, #args, dq.BULK do
    redis.call(command, key, unpack(args, i, math.min(i + dq.BULK - 1, #args)))
  end
end
-- the values of many fields of a hash, in order (false for an absent one)
function dq.hmget(hash, fields)
  local values = {}
  for i = 1, #fields, dq.BULK do
    local slice = redis.call('HMGET', hash, unpack(fields, i, math.min(i + dq.BULK - 1, #fields)))
    for j = 1, #slice do values[i + j - 1] = slice[j] end
  end
  return values
end
-- The far tier (data-model.md#far-tier). A message due at least the engine's compactAfter (H)
-- ahead is kept compact: an entry (fields i e d) of a stream of its time slot (slots H/2 wide, W),
-- its id indexed in a small ZSET '<far>-ids:<bucket>' (member id, score below), instead of a
-- member of delayed and a field of msgs. A slot is a binary tree of nodes cut by due time: its
-- first FAR_PAGE entries go to its root (level 0, the whole slot), those after to the node of
-- level 1 (a half of the slot) that holds their due time, until that one holds FAR_PAGE, then to
-- level 2 (a quarter), and so on: where the messages are dense, the nodes are narrow, so that the
-- earliest messages of a slot are in the first node of each level. A node of the last level (at
-- least 1 ms wide, at most FAR_LEVELS) is cut into pages of FAR_PAGE entries by count instead.
-- A node's member is '<slot start>' (level 0) or '<slot start>:<level>:<rank>' (rank: which of the
-- 2^level parts), its stream '<far>:<member>' (page 0) or '<far>:<member>:<page>'.
-- <far> (a ZSET: member a node, score its start) lists the nodes that hold entries; <far-state>
-- (a HASH) holds 'n' the indexed ids, 'l' and 'p', the level and split pointer of the linear
-- hashing that picks an id's bucket (2^l + p buckets, split one at a time as ids are added: at 32
-- per bucket on average, a bucket not yet split holds about twice that; with the SHA-1 of the id,
-- at most about 80 of 20,000 ids, under the 128 of a listpack-encoded ZSET, and merged back below
-- 8 per bucket), 'w' the slot widths written (an engine's W; engines of other compactAfter
-- settings write slots of their own), and 'p<member>' the last page of a node of the last level
-- (absent for the first). The index score of an id is due * FAR_PAGES + level + page (only the
-- last level has pages: it takes up to FAR_PAGES - level of them): an integer (compact in a
-- listpack), exact in a double for due times before 2109; from it and the slot width the id's node
-- and page follow, so a look-up reads one page. A score under
-- 10^15 is a due time alone (a root). Cancel and replace only remove the index entry: the stream
-- entry is skipped when its node is moved into delayed and msgs (by the scheduler, H/2 before the
-- node starts, newest entries first: an entry is moved when the index holds its id with its due
-- time, level and page, then the index entry goes, so older entries of the id are skipped). Every
-- far key shares the queue's hash tag: one slot of a cluster.
local FAR_SPLIT_AT, FAR_MERGE_AT = 32, 8
local FAR_PAGE, FAR_PAGES, FAR_LEVELS = 2000, 2048, 16
function dq.far_open(far, state)
  local s = redis.call('HMGET', state, 'n', 'l', 'p', 'w')
  local widths = {}
  for w in string.gmatch(s[4] or '', '%d+') do widths[#widths + 1] = tonumber(w) end
  return { far = far, state = state, n = tonumber(s[1] or '0'), l = tonumber(s[2] or '0'),
    p = tonumber(s[3] or '0'), n0 = tonumber(s[1] or '0'), widths = widths, widths0 = #widths,
    slots = {}, nodes = {}, tree = {}, held = {} }
end
-- the scripts' far-tier argument: '<compactAfter ms>:<slot minimum>' (a bare number: minimum 1)
function dq.compact(arg)
  local ms, min = string.match(arg, '^(%d+):(%d+)$')
  if ms then return tonumber(ms), tonumber(min) end
  return tonumber(arg), 1
end
-- whether a message due at due goes to the far tier: from the min-th message of its slot (width
-- wide) on (a slot whose root is in the far tier, or counted in delayed once per slot and call,
-- then as this call adds them), since a stream costs about 4.7 KB however few entries it holds
function dq.far_wants(f, delayed, due, width, min)
  local slot = due - due % width
  local held = f.held[slot]
  if held == nil then
    if redis.call('ZSCORE', f.far, string.format('%d', slot)) then
      held = min
    else
      held = #redis.call('ZRANGE', delayed, slot, slot + width - 1, 'BYSCORE', 'LIMIT', 0, min)
    end
  end
  -- the min-th message of a slot and those after go compact
  if held >= min - 1 then
    f.held[slot] = held
    return true
  end
  f.held[slot] = held + 1
  return false
end
-- the index score of an entry due at due in a page of a node of a level, and back (due and the
-- page number: level + page)
local function far_score(due, level, page)
  return due * FAR_PAGES + level + page
end
function dq.far_split(score)
  if score < 1e15 then return score, 0 end
  local page = score % FAR_PAGES
  return (score - page) / FAR_PAGES, page
end
-- the last level of a slot of width w: nodes at least 1 ms wide
local function far_last_level(w)
  local l = 0
  while l < FAR_LEVELS - 1 and w / 2 ^ (l + 1) >= 1 do l = l + 1 end
  return l
end
-- which of the 2^level parts of the slot (start s0, width w) holds due
local function far_rank(s0, w, level, due)
  return math.floor((due - s0) * 2 ^ level / w)
end
-- a node's member (the slot's start alone for its root: the roots of slots of two widths that
-- start together are one node) and the bounds of the due times it holds
local function far_member(s0, w, level, rank)
  if level == 0 then return string.format('%d', s0), s0, s0 + w end
  return string.format('%d:%d:%d:%d', s0, level, rank, w), s0 + math.ceil(rank * w / 2 ^ level),
    s0 + math.ceil((rank + 1) * w / 2 ^ level)
end
-- the due time before which a node's entries all are (a root: its slot's start and the widest
-- slot width written, the roots of slots of several widths being one node)
function dq.far_end(f, member)
  local s0, level, rank, w = string.match(member, '^(%d+):(%d+):(%d+):(%d+)$')
  if s0 then
    return tonumber(s0) + math.ceil((tonumber(rank) + 1) * tonumber(w) / 2 ^ tonumber(level))
  end
  local widest = 0
  for _, width in ipairs(f.widths) do widest = math.max(widest, width) end
  -- no width known: never passed over
  if widest == 0 then return 2 ^ 52 end
  return tonumber(member) + widest
end
-- the level of a node's member
function dq.far_level(member)
  local level = string.match(member, '^%d+:(%d+):%d+:%d+$')
  return level and tonumber(level) or 0
end
-- the stream of a page of a node
function dq.far_stream(f, member, page)
  if page == 0 then return f.far .. ':' .. member end
  return string.format('%s:%s:%d', f.far, member, page)
end
-- the last page of a node (its state field)
local function far_page_field(member)
  return 'p' .. member
end
function dq.far_last_page(f, member)
  return tonumber(redis.call('HGET', f.state, far_page_field(member)) or '0')
end
local function far_hash(id)
  return tonumber(string.sub(redis.sha1hex(id), 1, 7), 16)
end
local function far_bucket_no(f, h)
  local size = 2 ^ f.l
  local b = h % size
  if b < f.p then b = h % (size * 2) end
  return b
end
local function far_ids(f, bucket)
  return string.format('%s-ids:%d', f.far, bucket)
end
local function far_bucket(f, id)
  return far_ids(f, far_bucket_no(f, far_hash(id)))
end
-- how many indexed ids are due before t (epoch ms), and whether that is exact: every bucket of
-- the index counted when it has at most sample buckets, else sample buckets spread over it, and
-- their share of due-before ids applied to all n (roots score their due time, the others
-- due * FAR_PAGES + level + page with level + page < FAR_PAGES: both below t's bounds exactly)
function dq.far_before(f, t, sample)
  if f.n == 0 then return 0, true end
  local buckets = 2 ^ f.l + f.p
  local step = math.max(1, buckets / sample)
  local before, held = 0, 0
  for b = 0, buckets - 1, step do
    local key = far_ids(f, math.floor(b))
    before = before + redis.call('ZCOUNT', key, '-inf', '(' .. string.format('%d', t))
      + redis.call('ZCOUNT', key, '1e15', '(' .. string.format('%d', t * FAR_PAGES))
    held = held + redis.call('ZCARD', key)
  end
  if step == 1 then return before, true end
  if held == 0 then return 0, false end
  return math.floor(f.n * before / held + 0.5), false
end
-- the due time of an id in the far tier and its index score, or nil
function dq.far_due(f, id)
  if f.n == 0 then return nil end
  local s = redis.call('ZSCORE', far_bucket(f, id), id)
  if not s then return nil end
  local score = tonumber(s)
  return dq.far_split(score), score
end
-- a node of the slot (start s0, width w) that holds due: its member, bounds, last page and length,
-- read once per call (only a node of the last level has pages)
local function far_node_state(f, s0, w, level, due, paged)
  local key = s0 * FAR_LEVELS + level
  local ranks = f.tree[key]
  if not ranks then
    ranks = {}
    f.tree[key] = ranks
  end
  local rank = (level == 0) and 0 or far_rank(s0, w, level, due)
  local node = ranks[rank]
  if not node then
    local member, from, to = far_member(s0, w, level, rank)
    node = f.nodes[member]
    if not node then
      local last = paged and dq.far_last_page(f, member) or 0
      node = { member = member, from = from, to = to, level = level, paged = paged, n = last, n0 = last,
        len = redis.call('XLEN', dq.far_stream(f, member, last)) }
      f.nodes[member] = node
    end
    ranks[rank] = node
  end
  return node
end
-- splits buckets while the index holds more than FAR_SPLIT_AT ids per bucket
local far_rehash
local function far_grow(f)
  while f.n > FAR_SPLIT_AT * (2 ^ f.l + f.p) do
    -- split bucket p into p and p + 2^l
    local from = f.p
    f.p = f.p + 1
    far_rehash(f, from, from + 2 ^ f.l)
    if f.p == 2 ^ f.l then f.l, f.p = f.l + 1, 0 end
  end
end
-- writes a message into the far tier (its id not yet in the index): into the first node, from the
-- root down, that holds its due time and fewer than FAR_PAGE entries (the last level: its last
-- page, or a new one)
function dq.far_add(f, id, envelope, due, width)
  local node = f.recent
  -- the node written last takes the next message it holds while it is not full (its ancestors
  -- stay full: nothing leaves a node in a send)
  if not (node and due >= node.from and due < node.to and (node.paged or node.len < FAR_PAGE)) then
    local s0 = due - due % width
    local last = far_last_level(width)
    local level = 0
    node = far_node_state(f, s0, width, 0, due, last == 0)
    while level < last and node.len >= FAR_PAGE do
      level = level + 1
      node = far_node_state(f, s0, width, level, due, level == last)
    end
    f.recent = node
  end
  if node.len >= FAR_PAGE and node.level + node.n < FAR_PAGES - 1 then
    node.n, node.len = node.n + 1, 0
  end
  node.len = node.len + 1
  redis.call('ZADD', far_bucket(f, id), far_score(due, node.level, node.n), id)
  redis.call('XADD', dq.far_stream(f, node.member, node.n), '*', 'i', id, 'e', envelope,
    'd', due)
  f.n = f.n + 1
  f.slots[node.member] = node.from
  f.width = width
  far_grow(f)
end
-- removes an id from the far index (its stream entry is skipped when moved); whether it was there
function dq.far_remove(f, id)
  if f.n == 0 then return false end
  if redis.call('ZREM', far_bucket(f, id), id) == 1 then
    f.n = f.n - 1
    return true
  end
  return false
end
-- whether an index score is that of an entry due at due in page page (level and page)
function dq.far_is(score, due, page)
  local d, p = dq.far_split(score)
  return d == due and p == page
end
-- removes an id from the far index if it is held there with this due time and page (the live
-- entry of a node being moved); whether it was
local function far_take(f, id, due, page)
  if f.n == 0 then return false end
  local bucket = far_bucket(f, id)
  local s = redis.call('ZSCORE', bucket, id)
  if not s or not dq.far_is(tonumber(s), due, page) then return false end
  redis.call('ZREM', bucket, id)
  f.n = f.n - 1
  return true
end
-- calls visit(id, envelope, due) for the entries of a page of a node, newest first, read 1000 at
-- a time (the script's memory stays bounded), until visit returns true
function dq.far_scan(f, member, page, visit)
  local stream = dq.far_stream(f, member, page)
  local before = '+'
  while true do
    local entries = redis.call('XREVRANGE', stream, before, '-', 'COUNT', 1000)
    for _, entry in ipairs(entries) do
      local v = entry[2]
      if visit(v[2], v[4], tonumber(v[6])) then return end
    end
    if #entries < 1000 then return end
    before = '(' .. entries[#entries][1]
  end
end
-- the envelope of an id held in the far tier with this index score, or nil: the newest entry of the
-- id with its due time in its page, in the node of the slot of each width written that holds the
-- due time at the score's level
function dq.far_envelope(f, id, score)
  local due, number = dq.far_split(score)
  local found = nil
  for _, w in ipairs(f.widths) do
    local level = math.min(number, far_last_level(w))
    local s0 = due - due % w
    local member = far_member(s0, w, level, far_rank(s0, w, level, due))
    dq.far_scan(f, member, number - level, function(other, envelope, otherDue)
      if other == id and otherDue == due then found = envelope end
      return found ~= nil
    end)
    if found then return found end
  end
  return nil
end
-- moves the buckets' ids of one split or merge: from bucket 'from' those whose bucket is now 'to'
far_rehash = function(f, from, to)
  local key = far_ids(f, from)
  local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local moving, add = {}, {}
  for i = 1, #members, 2 do
    if far_bucket_no(f, far_hash(members[i])) == to then
      moving[#moving + 1] = members[i]
      add[#add + 1] = members[i + 1]
      add[#add + 1] = members[i]
    end
  end
  if #moving > 0 then
    dq.bulk('ZREM', key, moving)
    dq.bulk('ZADD', far_ids(f, to), add)
  end
end
-- merges buckets back while the index holds fewer than FAR_MERGE_AT ids per bucket, and writes the
-- state and the nodes written to
function dq.far_close(f)
  while (f.l > 0 or f.p > 0) and f.n < FAR_MERGE_AT * (2 ^ f.l + f.p) do
    -- merge the last bucket back into the one it split from
    if f.p == 0 then f.l, f.p = f.l - 1, 2 ^ (f.l - 1) end
    f.p = f.p - 1
    far_rehash(f, f.p + 2 ^ f.l, f.p)
  end
  local nodes = {}
  for member, start in pairs(f.slots) do
    nodes[#nodes + 1] = start
    nodes[#nodes + 1] = member
  end
  dq.bulk('ZADD', f.far, nodes)
  for member, node in pairs(f.nodes) do
    if node.n ~= node.n0 then redis.call('HSET', f.state, far_page_field(member), node.n) end
  end
  if f.width then
    -- the width this call wrote, listed once
    local known = false
    for _, w in ipairs(f.widths) do known = known or w == f.width end
    if not known then f.widths[#f.widths + 1] = f.width end
  end
  if f.n > 0 or f.l > 0 or f.p > 0 then
    redis.call('HSET', f.state, 'n', f.n, 'l', f.l, 'p', f.p)
    if #f.widths ~= f.widths0 then redis.call('HSET', f.state, 'w', table.concat(f.widths, ',')) end
  elseif f.n0 > 0 then
    -- the nodes' last pages stay, as long as their nodes
    redis.call('HDEL', f.state, 'n', 'l', 'p', 'w')
  end
end
-- moves the entries of the far nodes starting by upTo into delayed and msgs (newest first: the last
-- page of a node first; at most limit entries read); returns the entries read
function dq.far_move(f, delayed, msgs, upTo, limit)
  local budget = limit
  local zadd, hset = {}, {}
  while budget > 0 do
    local head = redis.call('ZRANGE', f.far, 0, 0, 'WITHSCORES')
    if not head[2] or tonumber(head[2]) > upTo then break end
    local member = head[1]
    local page = dq.far_last_page(f, member)
    local number = dq.far_level(member) + page
    local stream = dq.far_stream(f, member, page)
    local entries = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', budget)
    local read = {}
    for _, entry in ipairs(entries) do
      local v = entry[2]
      local id, due = v[2], tonumber(v[6])
      if far_take(f, id, due, number) then
        hset[#hset + 1] = id
        hset[#hset + 1] = v[4]
        zadd[#zadd + 1] = due
        zadd[#zadd + 1] = id
      end
      read[#read + 1] = entry[1]
    end
    if #entries < budget then
      -- the page is done: the node is, with its first
      redis.call('DEL', stream)
      if page == 0 then
        redis.call('ZREM', f.far, member)
      elseif page == 1 then
        redis.call('HDEL', f.state, far_page_field(member))
      else
        redis.call('HSET', f.state, far_page_field(member), page - 1)
      end
    else
      dq.bulk('XDEL', stream, read)
    end
    budget = budget - #entries
    if #entries == 0 then budget = budget - 1 end
  end
  dq.bulk('HSET', msgs, hset)
  dq.bulk('ZADD', delayed, zadd)
  return limit - budget
end
-- adds a message ready for delivery to a stream: the queue's, or a group's retry stream; a
-- retry carries the failure of the attempt before it (class, message, stack trace), so that its
-- dead letter names that failure if it expires before it starts
function dq.add_ready(stream, id, envelope, due, attempt, class, message, trace)
  if class == nil or class == '' then
    return redis.call('XADD', stream, '*', 'i', id, 'e', envelope, 'd', due,
      'a', attempt)
  end
  return redis.call('XADD', stream, '*', 'i', id, 'e', envelope, 'd', due,
    'a', attempt, 'x', class, 'r', message, 's', trace)
end
-- adds a due message whose envelope is missing to a stream, as an entry without one: every group
-- dead-letters it saying so (WireFormat.Ready)
function dq.add_unreadable(stream, id, due)
  return redis.call('XADD', stream, '*', 'i', id, 'd', due, 'a', 1)
end
-- a retry schedule member: <origin entry id>:<attempt>:<id byte length>:<id><envelope>; with the
-- failure that caused the retry, <origin>:<attempt>f<failure length>:<id length>:<id><failure>
-- <envelope>, the failure being <class length>:<message length>:<class><message><stack trace>
function dq.retry_member(origin, attempt, id, envelope, class, message, trace)
  if class == nil or class == '' then
    return origin .. ':' .. attempt .. ':' .. string.len(id) .. ':' .. id .. envelope
  end
  local failure = string.len(class) .. ':' .. string.len(message) .. ':' .. class .. message .. trace
  return origin .. ':' .. attempt .. 'f' .. string.len(failure) .. ':' .. string.len(id) .. ':' .. id .. failure
    .. envelope
end
-- reads a retry schedule member: id, envelope, attempt, and the failure's class, message and
-- stack trace (nil when it carries none)
function dq.read_retry_member(m)
  local c0 = string.find(m, ':', 1, true)
  local c1 = string.find(m, ':', c0 + 1, true)
  local c2 = string.find(m, ':', c1 + 1, true)
  local len = tonumber(string.sub(m, c1 + 1, c2 - 1))
  local attempt = string.sub(m, c0 + 1, c1 - 1)
  local id = string.sub(m, c2 + 1, c2 + len)
  local f = string.find(attempt, 'f', 1, true)
  if not f then return id, string.sub(m, c2 + len + 1), attempt end
  local size = tonumber(string.sub(attempt, f + 1))
  local failure = string.sub(m, c2 + len + 1, c2 + len + size)
  local a = string.find(failure, ':', 1, true)
  local b = string.find(failure, ':', a + 1, true)
  local cl = tonumber(string.sub(failure, 1, a - 1))
  local ml = tonumber(string.sub(failure, a + 1, b - 1))
  return id, string.sub(m, c2 + len + size + 1), string.sub(attempt, 1, f - 1), string.sub(failure, b + 1, b + cl),
    string.sub(failure, b + cl + 1, b + cl + ml), string.sub(failure, b + cl + ml + 1)
end
-- adds a dead letter to a queue's dead-letter stream
function dq.add_dead(stream, id, envelope, group, attempts, class, message, due, now, trace)
  return redis.call('XADD', stream, '*', 'i', id, 'e', envelope, 'g', group,
    'a', attempts, 'x', class, 'r', message, 'd', due,
    't', now, 's', trace)
end
-- reads a dead letter's fields: id, envelope, group
function dq.read_dead(flat)
  local f = {}
  for i = 1, #flat, 2 do f[flat[i]] = flat[i + 1] end
  return f['i'], f['e'], f['g']
end
-- a dead letter's error: its class and its reason's prefix (dq.error_prefix)
function dq.dead_error(flat)
  local class, message = '', ''
  for i = 1, #flat, 2 do
    if flat[i] == 'x' then class = flat[i + 1] elseif flat[i] == 'r' then message = flat[i + 1] end
  end
  return class, dq.error_prefix(message)
end
-- what dead letters of one error share in their reason: the message up to its first digit or
-- quote (ids and amounts vary where the reason does not), at most 80 bytes, never cut inside a
-- UTF-8 character
function dq.error_prefix(message)
  local cut = string.find(message, '[%d"\'`]') or (#message + 1)
  local n = math.min(cut - 1, 80)
  while n > 0 and n < #message do
    local b = string.byte(message, n + 1)
    if b < 128 or b >= 192 then break end
    n = n - 1
  end
  return string.sub(message, 1, n)
end
-- Recurring schedules (DelaySchedules.java, Ticks.java). A queue's schedules hash (partition 0)
-- holds per schedule N the fields '<letter>:N': d definition (read by the JVM), e envelope,
-- m missed-tick policy ('once' or 'skip'), g grace in ms (a tick later than that was missed),
-- n pending tick, q upcoming ticks (comma-separated, planned by the JVM), l last tick, c ticks
-- fired, x ticks skipped, p paused, u last change (epoch ms), t last trigger (epoch µs). The
-- pending tick is a message of the queue with id 'schedule/N/<tick epoch ms>'; a schedule with
-- no upcoming tick known keeps the marker member 'schedule/N/plan' (no envelope) in the queue's
-- schedule, due every second until the JVM planned it, so no schedule stalls for good.
function dq.tick_of(id)
  if string.sub(id, 1, 9) ~= 'schedule/' then return nil end
  return string.match(id, '^schedule/([^/]+)/(%w+)$')
end
function dq.tick_id(name, tick)
  return 'schedule/' .. name .. '/' .. tick
end
-- publishes a wake-up when a time became the head of a schedule
function dq.wake_if_head(delayed, channel, score)
  local h = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if h[2] and tonumber(h[2]) >= tonumber(score) then redis.call('PUBLISH', channel, h[2]) end
end
-- installs schedule N's next tick: the first upcoming one at or after floor (earlier ones were
-- missed), or the plan marker when none is known. Returns whether the JVM should plan more.
function dq.install_next(sched, delayed, msgs, name, floor, now)
  local list = {}
  local q = redis.call('HGET', sched, 'q:' .. name)
  if q then
    for tick in string.gmatch(q, '%d+') do
      if tonumber(tick) >= floor then list[#list + 1] = tick end
    end
  end
  local marker = dq.tick_id(name, 'plan')
  if #list == 0 then
    redis.call('HDEL', sched, 'n:' .. name, 'q:' .. name)
    redis.call('ZADD', delayed, now + 1000, marker)
    return true
  end
  local tick = table.remove(list, 1)
  local id = dq.tick_id(name, tick)
  redis.call('HSET', msgs, id, redis.call('HGET', sched, 'e:' .. name))
  redis.call('ZADD', delayed, tick, id)
  redis.call('HSET', sched, 'n:' .. name, tick, 'q:' .. name, table.concat(list, ','))
  redis.call('ZREM', delayed, marker)
  return #list < 4
end
-- removes schedule N's pending tick and plan marker from the queue's schedule
function dq.remove_pending(sched, delayed, msgs, name)
  local n = redis.call('HGET', sched, 'n:' .. name)
  if n then
    redis.call('ZREM', delayed, dq.tick_id(name, n))
    redis.call('HDEL', msgs, dq.tick_id(name, n))
  end
  redis.call('ZREM', delayed, dq.tick_id(name, 'plan'))
  redis.call('HDEL', sched, 'n:' .. name, 'q:' .. name)
end
-- a member of the queue's schedule whose id is schedule N's (dq.tick_of), now due. Fires N's
-- pending tick (or skips it: cancelled, or later than the grace under the 'skip' policy) and
-- installs the next one. Returns whether it was N's (false: a message like any other, left to
-- the caller) and whether the JVM should plan N's ticks.
function dq.schedule_due(sched, delayed, msgs, stream, id, name, tick, due, now, fire)
  if tick == 'plan' then
    redis.call('ZREM', delayed, id)
    if redis.call('HEXISTS', sched, 'e:' .. name) == 1 and redis.call('HEXISTS', sched, 'n:' .. name) == 0
        and redis.call('HEXISTS', sched, 'p:' .. name) == 0 then
      redis.call('ZADD', delayed, now + 1000, id)
      return true, true
    end
    return true, false
  end
  if redis.call('HGET', sched, 'n:' .. name) ~= tick then return false, false end
  local grace = tonumber(redis.call('HGET', sched, 'g:' .. name) or '60000')
  local env = redis.call('HGET', msgs, id)
  redis.call('ZREM', delayed, id)
  redis.call('HDEL', msgs, id)
  if fire and env and not (now - tonumber(tick) > grace and redis.call('HGET', sched, 'm:' .. name) == 'skip') then
    dq.add_ready(stream, id, dq.start_expiry(env, due), due, 1)
    dq.increment(sched, 'c:' .. name)
  else
    dq.increment(sched, 'x:' .. name)
  end
  redis.call('HSET', sched, 'l:' .. name, tick)
  return true, dq.install_next(sched, delayed, msgs, name, now - grace, now)
end
-- Schedules messages (dedup by id; optional replace = debounce), or makes them ready at once
-- when already due and no message due as early or earlier still waits in the schedule (it
-- would be promoted after this one: the stream keeps due order). Time comes from Redis.
-- A queue with a size limit (KEYS[5], the queue's maximum of waiting messages, set by the admin)
-- takes a new message into a partition only while the partition holds fewer than its share
-- (the maximum divided by the partition count, rounded up) of waiting messages: scheduled
-- (ZCARD) plus ready (due, and not yet read by the group furthest behind: its lag; the
-- stream's length where a lag is unknown: no group yet, or Redis before 7.0); it refuses the
-- others, writing nothing for them.
-- KEYS[1] delayed ZSET, KEYS[2] msgs HASH, KEYS[3] stream, KEYS[4] retired marker (a partition
-- retired by a change of the partition count takes no more messages), KEYS[5] size limit,
-- KEYS[6] urgent stream (due messages with a priority), KEYS[7] fair ZSET, KEYS[8] fair-state HASH
-- (in a fair-share queue a message due at once without a priority waits there: dq.hold_fair),
-- KEYS[9] far ZSET, KEYS[10] far-state HASH (a message due compactAfter or more ahead goes to the
-- far tier: dq.far_add)
-- ARGV[1] wake-up channel, ARGV[2] message count, ARGV[3] partition count, ARGV[4] '1' for a
-- fair-share queue, ARGV[5] '<compactAfter ms>:<slot minimum>' (0: no far tier; dq.compact,
-- dq.far_wants), then per message:
--   id, envelope, kind ('d' = delay in ms from Redis now, 'a' = absolute epoch ms), value,
--   mode ('0' keep an existing one, '1' replace it, '2' generated id: no existing one to look for)
-- Moving messages from another queue (RedissonMigration, ZSetMigration): KEYS[11] a ZSET (Redisson's
-- timeout ZSET, or a hand-written queue's), KEYS[12] Redisson's list, or the hand-written queue's
-- hash of payloads (KEYS[11] again when it has none), KEYS[13] Redisson's destination list; and
-- after the messages, per message, where it comes from and that member: 'z' a member of
-- Redisson's timeout ZSET (removed from it and its list), 'l' an entry of its destination list,
-- 'h' a member of a hand-written ZSET (removed from it and its hash). A message whose member is
-- gone (taken by the other queue's consumers, or moved by an earlier run) is skipped (status 6);
-- one written is removed from there, in this one script (one refused by the size limit stays).
-- Returns per message: status (1 scheduled, 2 ready, 3 duplicate, 4 replaced, 5 refused: over
-- the size limit, 6 gone from its source), due epoch ms (refused: the queue's maximum)
-- The marker is checked on every write: a queue moved to another producer protocol has the
-- marker 'protocol <n>' on each of its partitions (docs/protocol.md), so a producer that read
-- the queue's meta before the move writes nothing into it
local retired = redis.call('GET', KEYS[4])
if retired then
  if string.sub(retired, 1, 9) == 'protocol ' then
    return redis.error_reply('DQRETIRED this partition was retired: its queue speaks producer ' .. retired
      .. ', and this producer speaks 1: upgrade it (docs/protocol.md)')
  end
  return redis.error_reply('DQRETIRED this partition was retired by a change of the queue\'s partition count: '
    .. 'the sending application declares the old count and must be restarted with the new one')
end
local now, nowUp = dq.now()
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local headScore = head[2] and tonumber(head[2]) or nil
local wake = false
local fair = nil
local out = {}
-- scheduled messages are written together (dq.bulk); an id already written this call flushes
-- them first, so its look-up sees it
local zadd, hset, written = {}, {}, {}
local function flush()
  dq.bulk('HSET', KEYS[2], hset)
  dq.bulk('ZADD', KEYS[1], zadd)
  zadd, hset, written = {}, {}, {}
end
-- due messages the slowest group has not read yet (dq.lag: the stream's length where it is
-- unknown)
local function ready(stream)
  if redis.call('EXISTS', stream) == 0 then return 0 end
  local groups = dq.groups(stream)
  if #groups == 0 then return redis.call('XLEN', stream) end
  local most = 0
  for _, f in ipairs(groups) do
    local lag = dq.lag(stream, f)
    if not lag then return redis.call('XLEN', stream) end
    if lag > most then most = lag end
  end
  return most
end
local compact, farMin = dq.compact(ARGV[5])
-- a move from a Redisson delayed queue: its timeout ZSET, its list and its destination list
local sources = #KEYS >= 13
local function source_holds(src, member)
  if src == 'l' then return redis.call('LPOS', KEYS[13], member) ~= false end
  return redis.call('ZSCORE', KEYS[11], member) ~= false
end
local function source_remove(src, member)
  if src == 'l' then
    redis.call('LREM', KEYS[13], 1, member)
    return
  end
  redis.call('ZREM', KEYS[11], member)
  if src == 'z' then
    redis.call('LREM', KEYS[12], 1, member)
  elseif KEYS[12] ~= KEYS[11] then
    redis.call('HDEL', KEYS[12], member)
  end
end
local far = nil
local function far_state()
  far = far or dq.far_open(KEYS[9], KEYS[10])
  return far
end
local max = redis.call('GET', KEYS[5])
local share, waiting = nil, 0
if max then
  share = math.ceil(tonumber(max) / tonumber(ARGV[3]))
  waiting = redis.call('ZCARD', KEYS[1]) + ready(KEYS[3]) + ready(KEYS[6]) + redis.call('ZCARD', KEYS[7])
    + far_state().n
end
for i = 0, tonumber(ARGV[2]) - 1 do
  local b = 6 + i * 5
  local id, env, kind, value, replace = ARGV[b], ARGV[b + 1], ARGV[b + 2], tonumber(ARGV[b + 3]), ARGV[b + 4]
  -- a message moved from another queue (RedissonMigration): still there, or taken meanwhile
  local src, member = nil, nil
  if sources then
    local t = 6 + tonumber(ARGV[2]) * 5 + i * 2
    src, member = ARGV[t], ARGV[t + 1]
  end
  if src and not source_holds(src, member) then
    out[#out + 1] = 6
    out[#out + 1] = 0
  else
    local due = dq.due(kind, value, now, nowUp)
    local existing, existingFar = nil, false
    if replace ~= '2' then
      if written[id] then flush() end
      existing = redis.call('ZSCORE', KEYS[1], id)
      if not existing then
        existing = dq.far_due(far_state(), id)
        existingFar = existing ~= nil
      end
    end
    local status
    if existing and replace ~= '1' then
      status = 3
      due = tonumber(existing)
    elseif share and not existing and waiting >= share then
      status = 5
      due = tonumber(max)
    else
      if not existing then waiting = waiting + 1 end
      if existing then status = 4 end
      -- a replaced message in the far tier: out of its index (its stream entry is skipped)
      if existingFar then dq.far_remove(far, id) end
      local toFar = compact > 0 and due - now >= compact
        and dq.far_wants(far_state(), KEYS[1], due, math.floor(compact / 2), farMin)
      if existing and not existingFar and (toFar or (due <= now and (headScore == nil or headScore > due))) then
        redis.call('ZREM', KEYS[1], id)
        redis.call('HDEL', KEYS[2], id)
      end
      if toFar then
        dq.far_add(far_state(), id, env, due, math.floor(compact / 2))
        status = status or 1
      elseif due <= now and (headScore == nil or headScore > due) then
        local stream = dq.ready_stream(env, KEYS[3], KEYS[6])
        if ARGV[4] == '1' and stream == KEYS[3] then
          fair = fair or dq.fair_open(KEYS[8])
          dq.hold_fair(fair, KEYS[7], id, dq.start_expiry(env, due), due)
        else
          dq.add_ready(stream, id, dq.start_expiry(env, due), due, 1)
        end
        status = status or 2
      else
        hset[#hset + 1] = id
        hset[#hset + 1] = env
        zadd[#zadd + 1] = due
        zadd[#zadd + 1] = id
        written[id] = true
        status = status or 1
        if headScore == nil or due < headScore then
          headScore = due
          wake = true
        elseif due <= now then
          -- due behind an earlier message the scheduler has yet to move: promote now
          wake = true
        end
      end
    end
    out[#out + 1] = status
    out[#out + 1] = due
    if src and out[#out - 1] ~= 5 then source_remove(src, member) end
  end
end
flush()
if far then dq.far_close(far) end
if fair then dq.fair_close(fair) end
if wake then
  redis.call('PUBLISH', ARGV[1], headScore)
elseif fair then
  -- the scheduler fills the stream from the fair ZSET: readers waiting on the stream wake
  redis.call('PUBLISH', ARGV[1], now)
end
return out
