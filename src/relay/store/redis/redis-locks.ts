import Redis from "ioredis";
import { RedisScript, redisScript, runRedis } from "../shared-clients";
import { LockReleases } from "../lock-releases";
import { LockStore } from "../store";

/*
 * The shared store's request locks, in Redis, which make replicas send a request once. Keys start
 * with the namespace and carry a version, like the tables.
 *
 * A lock is a key holding its owner's id with an expiry. It is held for a short lease that the
 * owner renews while it lives (up to the time it asked for), so a replica that dies mid-call
 * frees its locks within one lease, while a live one keeps them for as long as its call takes.
 * Only the owner renews or releases (compare-and-delete in Lua): a lock that expired and was taken
 * by another replica is never deleted by the first. A release is published on the namespace's
 * channel, so that replicas waiting for that lock try again at once rather than at their next poll.
 */

/** Takes the lock when free, or renews it when already ours. */
const TAKE_LOCK = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if current then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** Deletes the lock only if the caller owns it, and says so on the channel ARGV[2]. */
const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], KEYS[1])
  return 1
end
return 0`;

/** Renews each lock still owned by its caller: ARGV holds owner and lease (ms) for each key in turn. */
const RENEW_LOCKS = `
local kept = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[2 * i - 1] then
    redis.call('PEXPIRE', key, ARGV[2 * i])
    kept[i] = 1
  else
    kept[i] = 0
  end
end
return kept`;

/** Locks renewed per script call, to keep each call short. */
const RENEW_CHUNK = 500;

interface HeldLock {
  key: string;
  owner: string;
  /** When the holder's own time limit ends (epoch ms): no renewal past it. */
  until: number;
}

export class RedisLocks implements LockStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #take: RedisScript;
  readonly #release: RedisScript;
  readonly #renew: RedisScript;
  /** Locks this process holds, by Redis key and owner. */
  readonly #held = new Map<string, HeldLock>();
  readonly #timer: NodeJS.Timeout;
  readonly #releases = new LockReleases();
  /** The connection that hears lock releases: a subscribed connection can do nothing else. */
  readonly listener: Redis;

  constructor(redis: Redis, prefix: string, lockLeaseMs: number) {
    if (!Number.isFinite(lockLeaseMs) || lockLeaseMs < 100)
      throw new RangeError(`Expected lockLeaseMs to be a number of at least 100, got ${lockLeaseMs}`);
    this.#redis = redis;
    this.#prefix = prefix;
    this.#leaseMs = Math.round(lockLeaseMs);
    this.#take = redisScript(redis, "strRelayTakeLock", TAKE_LOCK);
    this.#release = redisScript(redis, "strRelayReleaseLock", RELEASE_LOCK);
    this.#renew = redisScript(redis, "strRelayRenewLocks", RENEW_LOCKS);
    // Three renewals a lease: one late or failed renewal does not lose a lock.
    this.#timer = setInterval(() => void this.#renewHeld(), Math.max(30, Math.floor(this.#leaseMs / 3)));
    this.#timer.unref();
    // Queued until connected, and subscribed again after a reconnect; meanwhile waits end when their time runs out.
    this.listener = redis.duplicate({ enableOfflineQueue: true });
    this.listener.on("error", () => undefined);
    this.listener.on("message", (_channel: string, lockKey: string) => this.#releases.released(lockKey));
    this.listener.subscribe(this.#releasedChannel).catch(() => undefined);
  }

  #key(key: string): string {
    return `${this.#prefix}:lock_v1:${key}`;
  }

  /** Where releases are published. */
  get #releasedChannel(): string {
    return `${this.#prefix}:lock_released_v1`;
  }

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const redisKey = this.#key(key);
    const lease = Math.max(1, Math.round(Math.min(ttlMs, this.#leaseMs)));
    const taken = (await runRedis(this.#redis, () => this.#take([redisKey], [owner, lease]))) === 1;
    if (taken) this.#held.set(`${redisKey}\n${owner}`, { key: redisKey, owner, until: Date.now() + ttlMs });
    return taken;
  }

  async release(key: string, owner: string): Promise<void> {
    const redisKey = this.#key(key);
    this.#held.delete(`${redisKey}\n${owner}`);
    await runRedis(this.#redis, () => this.#release([redisKey], [owner, this.#releasedChannel]));
  }

  /** A release published by any replica wakes the wait; while the channel is not heard, `ms` ends it. */
  released(key: string, ms: number): Promise<void> {
    return this.#releases.wait(this.#key(key), ms);
  }

  /** Stops renewing: locks still held expire within a lease (their calls were drained first). */
  close(): void {
    clearInterval(this.#timer);
    this.#held.clear();
    this.listener.disconnect();
  }

  async #renewHeld(): Promise<void> {
    const now = Date.now();
    const due: HeldLock[] = [];
    for (const [id, lock] of this.#held) {
      if (lock.until <= now) this.#held.delete(id);
      else due.push(lock);
    }
    for (let i = 0; i < due.length; i += RENEW_CHUNK) {
      const chunk = due.slice(i, i + RENEW_CHUNK);
      try {
        const kept = (await this.#renew(
          chunk.map((l) => l.key),
          chunk.flatMap((l) => [l.owner, Math.max(1, Math.round(Math.min(this.#leaseMs, l.until - now)))]),
        )) as number[];
        // A lock that expired and went to another replica is not ours to renew or release.
        chunk.forEach((l, j) => {
          if (kept[j] !== 1) this.#held.delete(`${l.key}\n${l.owner}`);
        });
      } catch {
        // Redis is away: try again next time; a lock that expires meanwhile is lost, and the
        // gateway's re-check under the next lock sees this call's pending row.
      }
    }
  }
}
