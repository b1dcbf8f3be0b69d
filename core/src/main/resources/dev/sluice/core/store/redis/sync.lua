-- One round trip of a Sluice instance with the shared state (see SyncRequest).
-- All keys share the hash tag {sluice}: one slot, so the script is atomic in a cluster too.
-- KEYS[1]: the heartbeat set (instance -> expiry, ms); KEYS[1 + i]: bucket i.
-- ARGV: instance, aliveMs, E (entries), G (groups); per entry 8 values:
--   kind ('t' token bucket, 'w' window, 'c' concurrency), capacity,
--   windowMs (t) | windowId (w) | 0, ceiling (t: the level it refills to, 0: the capacity)
--   | windowEndMs (w) | 0,
--   adjust (t, w: + given back, - debited; c: slots this holder holds, set as is),
--   lowerTo (-1: none), initialRoom (-1: full), holder field (c) | '';
-- then per group: n, and n times (entry index from 1, need, extra).
-- Every need of a group is granted or none is; extras are granted as far as room allows.
-- Returns {live instances, {room left per entry}, {per group: {granted 1|0, wait ms, grant...}}}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local ttl = tonumber(ARGV[2])
local E = tonumber(ARGV[3])
local G = tonumber(ARGV[4])
local alive = KEYS[1]
redis.call('ZREMRANGEBYSCORE', alive, '-inf', now)
redis.call('ZADD', alive, now + ttl, me)
redis.call('PEXPIRE', alive, ttl * 10)
local live = redis.call('ZCARD', alive)

local kind, cap, p1, p2, level, win, stale, mine, top = {}, {}, {}, {}, {}, {}, {}, {}, {}
local a = 5
for i = 1, E do
  local key = KEYS[i + 1]
  local k = ARGV[a]
  local c = tonumber(ARGV[a + 1])
  local x1 = tonumber(ARGV[a + 2])
  local x2 = tonumber(ARGV[a + 3])
  local adj = tonumber(ARGV[a + 4])
  local lower = tonumber(ARGV[a + 5])
  local init = tonumber(ARGV[a + 6])
  local holder = ARGV[a + 7]
  a = a + 8
  kind[i] = k; cap[i] = c; p1[i] = x1; p2[i] = x2
  if k == 't' then
    -- the refill stops at the burst (less a mirror's transit allowance), as one JVM's bucket does
    local ceil = c
    if x2 > 0 and x2 < c then ceil = x2 end
    top[i] = ceil
    local s = redis.call('HMGET', key, 'l', 't')
    local l
    if s[1] then
      l = tonumber(s[1]) + (now - tonumber(s[2])) * c / x1
      if l > ceil then l = ceil end
    else
      l = ceil
      if init >= 0 and init < ceil then l = init end
    end
    l = l + adj
    if l > ceil then l = ceil end
    if lower >= 0 and l > lower then l = lower end
    level[i] = l
  elseif k == 'w' then
    local s = redis.call('HMGET', key, 'w', 'u')
    local w = tonumber(s[1])
    local u = tonumber(s[2])
    if w == nil then
      w = x1; u = 0
      if init >= 0 and init < c then u = c - init end
    elseif w < x1 then
      w = x1; u = 0
    elseif w > x1 then
      stale[i] = true -- this instance still counts in a window that is over here
    end
    if not stale[i] then
      u = u - adj
      if u < 0 then u = 0 end
      if lower >= 0 and u < c - lower then u = c - lower end
    end
    win[i] = w
    level[i] = c - u
  else
    local h = redis.call('HGETALL', key)
    local others = 0
    for j = 1, #h, 2 do
      local f = h[j]
      if f ~= holder then
        local owner = string.match(f, '^([^/]*)')
        if redis.call('ZSCORE', alive, owner) then
          others = others + tonumber(h[j + 1])
        else
          redis.call('HDEL', key, f) -- its instance stopped announcing itself: the slots are free
        end
      end
    end
    mine[i] = adj
    level[i] = c - others - adj
  end
end

-- What must be there for a grant: the amount; for a token bucket at most its full ceiling, the
-- rest taken as a debt the refill pays back (a call larger than the burst waits for a full bucket).
local function threshold(i, amount)
  if kind[i] == 't' and amount > top[i] then return top[i] end
  return amount
end

local function wait(i, amount)
  if amount > cap[i] then return 60000 end
  if kind[i] == 't' then
    local missing = threshold(i, amount) - level[i]
    if missing <= 0 then return 1 end
    return math.ceil(missing * p1[i] / cap[i])
  elseif kind[i] == 'w' then
    if stale[i] then return 1 end
    return math.max(1, p2[i] - now)
  end
  return 20 -- concurrency: slots come back when calls end anywhere in the fleet
end

local groups = {}
for g = 1, G do
  local n = tonumber(ARGV[a]); a = a + 1
  local idx, need, extra = {}, {}, {}
  for j = 1, n do
    idx[j] = tonumber(ARGV[a]); need[j] = tonumber(ARGV[a + 1]); extra[j] = tonumber(ARGV[a + 2])
    a = a + 3
  end
  local ok = true
  local w = 0
  for j = 1, n do
    local i = idx[j]
    if need[j] > 0 and (stale[i] or level[i] < threshold(i, need[j])) then
      ok = false
      local x = wait(i, need[j])
      if x > w then w = x end
    end
  end
  local res = {0, 0}
  if ok then
    res[1] = 1
    local total = 0
    for j = 1, n do
      local i = idx[j]
      local room = 0
      if not stale[i] then room = math.floor(level[i] - need[j]) end
      local e = extra[j]
      if e > room then e = room end
      if e < 0 then e = 0 end
      local grant = need[j] + e
      level[i] = level[i] - grant
      if kind[i] == 'c' then mine[i] = mine[i] + grant end
      res[j + 2] = grant
      total = total + grant
    end
    if total == 0 then
      for j = 1, n do
        local x = wait(idx[j], 1)
        if x > w then w = x end
      end
    end
  end
  res[2] = w
  groups[g] = res
end

local rooms = {}
a = 5
for i = 1, E do
  local key = KEYS[i + 1]
  if kind[i] == 't' then
    redis.call('HSET', key, 'l', string.format('%.6f', level[i]), 't', string.format('%d', now))
    redis.call('PEXPIRE', key, math.ceil(p1[i] * 2) + 1000)
  elseif kind[i] == 'w' then
    if not stale[i] then
      redis.call('HSET', key, 'w', string.format('%d', win[i]), 'u', string.format('%d', cap[i] - level[i]))
      redis.call('PEXPIREAT', key, p2[i] + 60000)
    end
  else
    local holder = ARGV[a + 7]
    if mine[i] > 0 then
      redis.call('HSET', key, holder, mine[i])
    else
      redis.call('HDEL', key, holder)
    end
    redis.call('PEXPIRE', key, ttl * 10)
  end
  a = a + 8
  rooms[i] = math.floor(level[i])
end
return {live, rooms, groups}
