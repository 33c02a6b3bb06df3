import Redis from "ioredis";
import { AcquireOptions, Pacer, PacingRule, SLOW_DOWN_MS } from "./pacer";
import { RedisScript, partError, redisScript } from "./store/shared-clients";
import { Waiters } from "./waiters";

/**
 * The pacer of relay replicas: the same rule as LocalPacer (at most `limit` sends in any sliding
 * `windowMs`, spaced evenly with a little catch-up, paused after a 429 and then slower for a
 * while), kept in Redis so that every replica together stays within the account's limit.
 *
 * One Lua script decides each send slot on Redis's clock (TIME), so replicas whose clocks differ
 * still share one schedule. The script either grants a slot or says how long until one could be
 * granted; each replica queues its own callers and polls for the head of its queue, one script
 * call at a time, so Redis sees one poll per replica rather than one per waiting call.
 */

/**
 * KEYS[1]: grant times in the window (a list, oldest first); KEYS[2]: due, paused, slow (a hash).
 * ARGV: limit, windowMs, catch-up (as LocalPacer#pump: a late poll's sends catch up; after idle, no
 * burst). Returns {1} when a slot is granted, else {0, ms to wait}.
 */
const TAKE_SLOT = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local catchUp = tonumber(ARGV[3])
local paused = tonumber(redis.call('HGET', KEYS[2], 'paused') or '0')
if now < paused then return {0, tostring(paused - now)} end
while true do
  local oldest = redis.call('LINDEX', KEYS[1], 0)
  if not oldest or tonumber(oldest) > now - window then break end
  redis.call('LPOP', KEYS[1])
end
local slow = tonumber(redis.call('HGET', KEYS[2], 'slow') or '0')
if now < slow then limit = math.max(1, math.floor(limit * 0.9)) end
local sent = redis.call('LLEN', KEYS[1])
if sent >= limit then
  local oldestThatCounts = tonumber(redis.call('LINDEX', KEYS[1], sent - limit))
  return {0, tostring(oldestThatCounts + window - now)}
end
local spacing = window / limit
local due = tonumber(redis.call('HGET', KEYS[2], 'due') or '0')
if now < due then return {0, tostring(due - now)} end
if now - due > spacing * catchUp then due = now end
redis.call('HSET', KEYS[2], 'due', tostring(due + spacing))
redis.call('RPUSH', KEYS[1], tostring(now))
local keep = math.ceil(math.max(window * 2, slow - now + window))
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[2], keep)
return {1}`;

/** KEYS[1]: the state hash. ARGV: ms until sends may resume, ms of slower sending after that. */
const THROTTLED = `
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

/**
 * The window's margin for replicas (LocalPacer's is PACING_MARGIN_MS, 40 ms). Between a slot
 * granted here and the request leaving, a replica makes a few round trips to Redis and Postgres
 * (the request's lock, the cache, the ledger row), and on a busy host each can take tens of
 * milliseconds: requests granted apart can leave bunched, and the service counts them as they
 * arrive. Measured on a 2-core host running two replicas, Redis, Postgres and the sandbox, 40 ms
 * let 101–105 arrive in a second; the wider margin costs about 5 % of the rate (91 rather than 96
 * a second at RELAY_UPSTREAM_RPS=100).
 */
export const SHARED_PACING_MARGIN_MS = 100;

/** As in LocalPacer: how many spacings late a poll may be and still have the sends it delayed catch up. */
const CATCH_UP = 4;

export class RedisPacer implements Pacer {
  readonly #rule: PacingRule;
  readonly #keys: { log: string; state: string };
  readonly #takeSlot: RedisScript;
  readonly #throttled: RedisScript;
  readonly #waiters = new Waiters();
  #polling = false;
  #fastestRoundTrip = Infinity;
  #closed = false;
  #sleep: { timer: NodeJS.Timeout; wake: () => void } | undefined;

  /** `redis` is borrowed: closing the pacer leaves it open. */
  constructor(redis: Redis, rule: PacingRule, prefix: string) {
    this.#rule = rule;
    this.#keys = { log: `${prefix}:pacer_v1:log`, state: `${prefix}:pacer_v1:state` };
    this.#takeSlot = redisScript(redis, "strRelayTakeSlot", TAKE_SLOT);
    this.#throttled = redisScript(redis, "strRelayThrottled", THROTTLED);
  }

  /** Half the margin, as LocalPacer's. */
  readonly slotLifetimeMs = SHARED_PACING_MARGIN_MS / 2;

  get waiting(): number {
    return this.#waiters.size;
  }

  acquire(signal?: AbortSignal, options: AcquireOptions = {}): Promise<void> {
    const waiting = this.#waiters.wait(signal, options.first);
    void this.#poll();
    return waiting;
  }

  /** Every replica stops until `until` (this machine's clock, sent as a delay) and slows down after. */
  throttled(until: number): void {
    const delayMs = Math.max(0, until - Date.now());
    // Best effort: if Redis is away no slot is granted anyway.
    this.#throttled([this.#keys.state], [delayMs, SLOW_DOWN_MS]).catch(() => undefined);
    // The poll may be asleep on an older answer; ask again at once.
    this.#sleep?.wake();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sleep?.wake();
    this.#waiters.close();
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      while (this.#waiters.size > 0 && !this.#closed) {
        let answer: unknown;
        const asked = performance.now();
        try {
          answer = await this.#takeSlot([this.#keys.log, this.#keys.state], [this.#rule.limit, this.#rule.windowMs, CATCH_UP]);
        } catch (error) {
          // No slot can be had: every caller waiting here gets a clear 503, none is sent unpaced.
          this.#waiters.failAll(partError("Redis", error));
          return;
        }
        if (this.#closed) return;
        const [granted, waitMs] = answer as [number, string?];
        const roundTrip = performance.now() - asked;
        this.#fastestRoundTrip = Math.min(this.#fastestRoundTrip, roundTrip);
        // A grant that reached this process late (it stalled, or Redis did) is old already: sent
        // now, it would leave bunched with grants made since. It stays counted, and is not used.
        // "Late" is against the fastest round trip seen, so a distant Redis does not make every grant late.
        if (granted === 1 && roundTrip - this.#fastestRoundTrip > this.slotLifetimeMs) continue;
        if (granted === 1) {
          // The caller it was asked for may have left meanwhile: the next one takes the slot.
          this.#waiters.grant();
          continue;
        }
        await this.#nap(Math.max(1, Math.ceil(Number(waitMs))));
      }
    } finally {
      this.#polling = false;
    }
  }

  #nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#sleep = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#sleep = { timer, wake };
    });
  }
}
