import Redis from "ioredis";
import { AcquireOptions, JITTER_MARGIN_MS, Pacer, PacingRule, SLOW_DOWN_MS, Slot } from "./pacer";
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
 * How long a slot of the Redis pacer stays good, counted from when it was asked for: Redis decided
 * it somewhere within the round trip, and the replica's clock cannot tell where without trusting
 * the two clocks to agree. It covers that round trip and the ledger row written in Postgres before
 * the send; a grant that took longer to arrive is not used (it stays counted), so Redis must be
 * a few milliseconds away at most, as it is beside the replicas.
 */
export const SHARED_SLOT_LIFETIME_MS = 30;
/** The window's margin for replicas: the jitter and the slot's lifetime, ms. */
export const SHARED_PACING_MARGIN_MS = JITTER_MARGIN_MS + SHARED_SLOT_LIFETIME_MS;

/** Grants in a row that arrive too late to use before the waiting callers are told Redis is too slow. */
const STALE_GRANTS_TO_FAIL = 20;

/** As in LocalPacer: how many spacings late a poll may be and still have the sends it delayed catch up. */
const CATCH_UP = 4;

export class RedisPacer implements Pacer {
  readonly #rule: PacingRule;
  readonly #keys: { log: string; state: string };
  readonly #takeSlot: RedisScript;
  readonly #throttled: RedisScript;
  readonly #waiters = new Waiters();
  #polling = false;
  /** Grants in a row that arrived older than a slot's lifetime. */
  #staleGrants = 0;
  #closed = false;
  #sleep: { timer: NodeJS.Timeout; wake: () => void } | undefined;

  /** `redis` is borrowed: closing the pacer leaves it open. */
  constructor(redis: Redis, rule: PacingRule, prefix: string) {
    this.#rule = rule;
    this.#keys = { log: `${prefix}:pacer_v1:log`, state: `${prefix}:pacer_v1:state` };
    this.#takeSlot = redisScript(redis, "strRelayTakeSlot", TAKE_SLOT);
    this.#throttled = redisScript(redis, "strRelayThrottled", THROTTLED);
  }

  readonly slotLifetimeMs = SHARED_SLOT_LIFETIME_MS;

  get waiting(): number {
    return this.#waiters.size;
  }

  acquire(signal?: AbortSignal, options: AcquireOptions = {}): Promise<Slot> {
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
          answer = await this.#takeSlot(
            [this.#keys.log, this.#keys.state],
            [this.#rule.limit, this.#rule.windowMs, CATCH_UP],
          );
        } catch (error) {
          // No slot can be had: every caller waiting here gets a clear 503, none is sent unpaced.
          this.#waiters.failAll(partError("Redis", error));
          return;
        }
        if (this.#closed) return;
        const [granted, waitMs] = answer as [number, string?];
        if (granted === 1) {
          // A grant that reached this process late (it stalled, or Redis did) may be old already:
          // sent now, it would leave bunched with grants made since. It stays counted, and is not used.
          if (performance.now() - asked > this.slotLifetimeMs) {
            // Redis that answers this slowly every time would keep every caller waiting for good.
            if (++this.#staleGrants >= STALE_GRANTS_TO_FAIL) {
              this.#staleGrants = 0;
              this.#waiters.failAll(
                partError(
                  "Redis",
                  new Error(`its answers take over ${this.slotLifetimeMs} ms, too slow to pace sends`),
                ),
              );
            }
            continue;
          }
          this.#staleGrants = 0;
          // The caller it was asked for may have left meanwhile: the next one takes the slot.
          this.#waiters.grant({ grantedAt: asked });
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
