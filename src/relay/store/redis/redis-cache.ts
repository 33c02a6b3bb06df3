import Redis from "ioredis";
import { runRedis } from "../shared-clients";
import { partError } from "../store-down";
import { joinComparables, splitComparables } from "../cached-envelope";
import { CacheReadOptions, CacheStore, CachedAnswer } from "../store";

/*
 * The shared store's cached answers, in Redis. Keys start with the namespace and carry a version,
 * like the tables. No expiry in Redis: the relay's TTL (RELAY_CACHE_TTL_HOURS) is applied by age
 * when an answer is read.
 */

export class RedisCache implements CacheStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  /**
   * A hash: `entry`, the cached answer with its comparables emptied, and `comparables`, those kept
   * apart (cached-envelope.ts), so a read that shows none fetches and parses only the entry.
   */
  #key(key: string): string {
    return `${this.#prefix}:cache_v2:${key}`;
  }

  /** One relay version back: the whole cached answer as one string. */
  #keyV1(key: string): string {
    return `${this.#prefix}:cache_v1:${key}`;
  }

  async get(key: string, options: CacheReadOptions = {}): Promise<CachedAnswer | undefined> {
    const redisKey = this.#key(key);
    const [text, comparables] =
      options.comparables === false
        ? [await runRedis(this.#redis, () => this.#redis.hget(redisKey, "entry")), undefined]
        : await runRedis(this.#redis, () => this.#redis.hmget(redisKey, "entry", "comparables"));
    if (typeof text === "string") {
      const entry = JSON.parse(text) as CachedAnswer;
      return { ...entry, envelope: joinComparables(entry.envelope, comparables) };
    }
    return this.#moveV1(key);
  }

  async put(entry: CachedAnswer): Promise<void> {
    const { rest, comparables } = splitComparables(entry.envelope);
    const fields: Record<string, string> = { entry: JSON.stringify({ ...entry, envelope: rest }) };
    if (comparables !== null) fields.comparables = comparables;
    const redisKey = this.#key(entry.key);
    // Replaced whole: no comparables of an earlier answer may outlive it.
    const results = await runRedis(this.#redis, () => this.#redis.multi().del(redisKey).hset(redisKey, fields).exec());
    const failed = results?.find(([error]) => error)?.[0];
    if (failed) throw partError("Redis", failed);
  }

  /**
   * An answer cached by a replica one version back is moved when first asked for (an extra read on
   * a miss only, which is otherwise followed by a call to the service): moved at start it would
   * need one replica to own a scan of the whole cache.
   */
  async #moveV1(key: string): Promise<CachedAnswer | undefined> {
    const old = this.#keyV1(key);
    const text = await runRedis(this.#redis, () => this.#redis.get(old));
    if (text === null) return undefined;
    const entry = JSON.parse(text) as CachedAnswer;
    await this.put(entry);
    await runRedis(this.#redis, () => this.#redis.del(old));
    return entry;
  }
}
