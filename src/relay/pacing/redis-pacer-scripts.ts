/*
 * The Redis pacer's scripts (redis-pacer.ts says what they keep and why), run on Redis's clock (TIME)
 * so that replicas whose clocks differ still share one schedule.
 */

/**
 * Lua: moves the log's (KEYS[1]) entries of the slots released, `count` pairs of ARGV from `from`:
 * slot, and ms from asking for it to its release. A slot's member is its grant time and a sequence
 * number, so the grant plus what the replica saw from asking to the release is, on this clock, the
 * latest its request can have left: the entry moves there if that is sooner (XX LT: a slot whose
 * entry has left the window is not counted again; its request left before that).
 */
const APPLY_RELEASES = `
local function applyReleases(from, count)
  for i = from, from + count * 2 - 1, 2 do
    local releasedBy = tonumber(string.match(ARGV[i], '^[^:]+')) + tonumber(ARGV[i + 1])
    redis.call('ZADD', KEYS[1], 'XX', 'LT', releasedBy, ARGV[i])
  end
end`;

/**
 * TAKE_SLOT decides one send slot for one replica, in three steps:
 *
 * 1. The slots this replica released since its last call (REPORT_RELEASES): each entry in the
 *    log moves from the latest its request could have been written to when it was released.
 * 2. The account's rule, as LocalPacer#pump: at most `limit` sends in any sliding window, spaced
 *    evenly, with a little catch-up at twice the rate after a late poll, none while paused after
 *    a 429.
 * 3. Whose turn it is, across replicas: each replica registers the callers it has waiting (with
 *    their best priority) for `ttl` ms; the slot goes to the registered caller served longest ago
 *    (a shared round-robin), and only to a replica that has that caller waiting at that priority.
 *    Another replica is told to ask again once no slot has been granted for two spacings: if that
 *    is still so then (the chosen replica stalled), the slot goes to that replica's own next caller
 *    rather than unused. A renewal or retry (`urgent`) skips the turns, as it does in one process.
 *
 * KEYS[1]: the log (a sorted set: one member a slot, scored by when its request left or will have
 * left at the latest, pacer.ts); KEYS[2]: due, paused, slow, last (a hash); KEYS[3]: registrations
 * (a hash: "replica|caller|priority" → expiry ms); KEYS[4]: turns (a hash: caller → the sequence
 * number of its last grant, "#" → the last number given).
 * ARGV: limit, windowMs, catch-up, replica, ttl ms, urgent (1/0), the latest a slot's request can
 * be written, ms after its grant (lifetime and write deadline), the number of releases reported,
 * then slot and ms from asking to release for each, then caller, formula count, bulk count for each
 * caller this replica has waiting.
 * Returns {1, caller, slot} when a slot is granted (caller "" for an urgent call), else {0, ms to wait}.
 */
export const TAKE_SLOT = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
${APPLY_RELEASES}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local catchUp = tonumber(ARGV[3])
local me = ARGV[4]
local ttl = tonumber(ARGV[5])
local urgent = ARGV[6] == '1'
local latestWrite = tonumber(ARGV[7])
local released = tonumber(ARGV[8])
local first = 9 + released * 2
applyReleases(9, released)
local mine = {}
for i = first, #ARGV, 3 do mine[ARGV[i]] = {formula = tonumber(ARGV[i + 1]), bulk = tonumber(ARGV[i + 2])} end
-- Every caller waiting anywhere, with its best priority; this replica's old registrations are replaced.
local best = {}
local function note(caller, prio)
  if best[caller] ~= 'formula' then best[caller] = prio end
end
local reg = redis.call('HGETALL', KEYS[3])
for i = 1, #reg, 2 do
  local replica, caller, prio = string.match(reg[i], '^(.-)|(.*)|(%a+)$')
  if replica == me or tonumber(reg[i + 1]) <= now then
    redis.call('HDEL', KEYS[3], reg[i])
  else
    note(caller, prio)
  end
end
local function register()
  for caller, n in pairs(mine) do
    for _, prio in ipairs({'formula', 'bulk'}) do
      if n[prio] > 0 then redis.call('HSET', KEYS[3], me .. '|' .. caller .. '|' .. prio, tostring(now + ttl)) end
    end
  end
  redis.call('PEXPIRE', KEYS[3], ttl * 2)
end
local function wait(ms)
  register()
  return {0, tostring(ms)}
end
for caller, n in pairs(mine) do
  if n.formula > 0 then note(caller, 'formula') elseif n.bulk > 0 then note(caller, 'bulk') end
end
local paused = tonumber(redis.call('HGET', KEYS[2], 'paused') or '0')
if now < paused then return wait(paused - now) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local slow = tonumber(redis.call('HGET', KEYS[2], 'slow') or '0')
if now < slow then limit = math.max(1, math.floor(limit * 0.9)) end
local sent = redis.call('ZCARD', KEYS[1])
if sent >= limit then
  local oldestThatCounts = tonumber(redis.call('ZRANGE', KEYS[1], sent - limit, sent - limit, 'WITHSCORES')[2])
  return wait(oldestThatCounts + window - now)
end
local spacing = window / limit
local due = tonumber(redis.call('HGET', KEYS[2], 'due') or '0')
-- As LocalPacer: sends catching up go at twice the rate, never at once.
local last = tonumber(redis.call('HGET', KEYS[2], 'last') or '0')
local nextAt = math.max(due, last + spacing / 2)
if now < nextAt then return wait(nextAt - now) end
-- The caller served longest ago among \`among\` (callers → their best priority), ties by name.
local function nextOf(among)
  local chosen, turn = '', nil
  for caller, _ in pairs(among) do
    local served = tonumber(redis.call('HGET', KEYS[4], caller) or '0')
    if turn == nil or served < turn or (served == turn and caller < chosen) then
      chosen, turn = caller, served
    end
  end
  return chosen
end
local chosen = ''
if not urgent then
  chosen = nextOf(best)
  local n = mine[chosen]
  if n == nil or n[best[chosen]] == 0 then
    -- Another replica's turn. If no slot was granted for two spacings (that replica stalled, or is
    -- slow to poll), the slot goes to this replica's own next caller rather than unused.
    if now - last <= 2 * spacing then return wait(last + 2 * spacing + 1 - now) end
    local own = {}
    for caller, m in pairs(mine) do
      if m.formula > 0 then own[caller] = 'formula' elseif m.bulk > 0 then own[caller] = 'bulk' end
    end
    chosen = nextOf(own)
    if chosen == '' then return wait(spacing) end
    best[chosen] = own[chosen]
  end
  local n = mine[chosen]
  local prio = best[chosen]
  n[prio] = n[prio] - 1
  redis.call('HSET', KEYS[4], chosen, redis.call('HINCRBY', KEYS[4], '#', 1))
  redis.call('PEXPIRE', KEYS[4], 600000)
end
register()
if now - due > spacing * catchUp then due = now end
redis.call('HSET', KEYS[2], 'due', tostring(due + spacing), 'last', tostring(now))
local slot = tostring(now) .. ':' .. redis.call('HINCRBY', KEYS[2], 'slots', 1)
redis.call('ZADD', KEYS[1], now + latestWrite, slot)
local keep = math.ceil(math.max(latestWrite + window, slow - now + window))
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[2], keep)
return {1, chosen, slot}`;

/**
 * KEYS[1]: the log. ARGV: the number of releases, then slot and ms from asking to release for each.
 * Reports releases when no slot is asked for (the replica has nobody waiting, or is closing), so that
 * other replicas need not wait for those entries' latest write.
 */
export const REPORT_RELEASES = `
${APPLY_RELEASES}
applyReleases(2, tonumber(ARGV[1]))
return 1`;

/** KEYS[1]: registrations. ARGV[1]: the replica. Removes its registrations: it has nobody waiting now. */
export const FORGET_WAITING = `
local reg = redis.call('HKEYS', KEYS[1])
local prefix = ARGV[1] .. '|'
for _, field in ipairs(reg) do
  if string.sub(field, 1, #prefix) == prefix then redis.call('HDEL', KEYS[1], field) end
end
return 1`;

/** KEYS[1]: the state hash. ARGV: ms until sends may resume, ms of slower sending after that. */
export const THROTTLED = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local resume = now + tonumber(ARGV[1])
local slowUntil = resume + tonumber(ARGV[2])
local paused = tonumber(redis.call('HGET', KEYS[1], 'paused') or '0')
local slow = tonumber(redis.call('HGET', KEYS[1], 'slow') or '0')
redis.call('HSET', KEYS[1], 'paused', tostring(math.max(paused, resume)), 'slow', tostring(math.max(slow, slowUntil)))
redis.call('PEXPIRE', KEYS[1], math.ceil(math.max(slow, slowUntil) - now + 60000))
return 1`;
