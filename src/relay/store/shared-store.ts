import Redis from "ioredis";
import { Pool } from "pg";
import type { JobStore } from "../batch/jobs/job-store";
import { committedCentsOf } from "./committed-spend";
import { PostgresLedger } from "./postgres/postgres-ledger";
import { RedisCache } from "./redis/redis-cache";
import { STORE_TIMEOUT_MS, postgresPool, redisClient } from "./shared-clients";
import {
  CacheReadOptions,
  CachedAnswer,
  CallEnd,
  CallStart,
  CallerUsage,
  LastCall,
  LedgerRow,
  RelayStore,
  Reservation,
  StoredAnalysis,
  UsageTotals,
} from "./store";

/*
 * The store of relay replicas: Redis for cached answers and request locks (and, through
 * `redis`, the pacing bucket), Postgres for the ledger, the analyses and the heartbeats. The
 * replicas keep nothing else, so any of them can answer any request and any can die.
 *
 * Neither half falls back on anything: when Redis or Postgres is away, the call fails at once
 * (the gateway answers 503 and sends nothing) and works again as soon as the server is back.
 */

export interface SharedStoreOptions {
  redisUrl: string;
  databaseUrl: string;
  /** The Postgres schema and the Redis key prefix (RELAY_STORE_NAMESPACE). */
  namespace: string;
  /** How long a request lock outlives a replica that stopped renewing it, ms. */
  lockLeaseMs: number;
  /** Names the connections in Redis CLIENT LIST and pg_stat_activity. */
  clientName?: string;
}

/** The RelayStore of relay replicas. */
export class SharedStore implements RelayStore {
  readonly kind = "shared" as const;
  /** The Redis connection, shared with the pacer (which does not close it). */
  readonly redis: Redis;
  readonly namespace: string;
  readonly jobs: JobStore;
  readonly #cache: RedisCache;
  readonly #ledger: PostgresLedger;
  #closed = false;

  /**
   * Connects and migrates. A server that is away does not stop the start: the relay comes up,
   * answers 503 and says so on /healthz, and migrates once Postgres answers.
   */
  static async open(options: SharedStoreOptions): Promise<SharedStore> {
    const name = options.clientName ?? "str-relay";
    const store = new SharedStore(
      redisClient(options.redisUrl, name),
      postgresPool(options.databaseUrl, name),
      options,
    );
    await Promise.allSettled([
      store.#ledger.ready(),
      whenReady(store.redis, STORE_TIMEOUT_MS),
      whenReady(store.#cache.listener, STORE_TIMEOUT_MS),
    ]);
    return store;
  }

  private constructor(redis: Redis, pool: Pool, options: SharedStoreOptions) {
    this.redis = redis;
    this.namespace = options.namespace;
    this.#cache = new RedisCache(redis, options.namespace, options.lockLeaseMs);
    this.#ledger = new PostgresLedger(pool, options.namespace);
    this.jobs = this.#ledger.jobs;
  }

  getCached(key: string, options?: CacheReadOptions): Promise<CachedAnswer | undefined> {
    return this.#cache.getCached(key, options);
  }

  putCached(entry: CachedAnswer): Promise<void> {
    return this.#cache.putCached(entry);
  }

  getAnalysis(id: string): Promise<StoredAnalysis | undefined> {
    return this.#ledger.getAnalysis(id);
  }

  putAnalysis(analysis: StoredAnalysis): Promise<void> {
    return this.#ledger.putAnalysis(analysis);
  }

  reserveCall(
    call: CallStart,
    budgetCents: number,
    dayStart: number,
    callerBudgetCents?: number,
  ): Promise<Reservation> {
    return this.#ledger.reserveCall(call, budgetCents, dayStart, callerBudgetCents);
  }

  async committedCents(dayStart: number): Promise<number> {
    return committedCentsOf(await this.#ledger.usage(dayStart));
  }

  callerCommittedCents(dayStart: number, callerId: string): Promise<number> {
    return this.#ledger.callerCommittedCents(dayStart, callerId);
  }

  finishCall(id: string, end: CallEnd): Promise<void> {
    return this.#ledger.finishCall(id, end);
  }

  lastCall(cacheKey: string): Promise<LastCall | undefined> {
    return this.#ledger.lastCall(cacheKey);
  }

  usage(since: number): Promise<UsageTotals> {
    return this.#ledger.usage(since);
  }

  usageByCaller(since: number): Promise<CallerUsage[]> {
    return this.#ledger.usageByCaller(since);
  }

  heartbeat(owner: string, intervalMs: number): Promise<void> {
    return this.#ledger.heartbeat(owner, intervalMs);
  }

  settleOrphans(sweeper: string, staleAfterMs: number): Promise<number> {
    return this.#ledger.settleOrphans(sweeper, staleAfterMs);
  }

  acquireLock(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#cache.acquireLock(key, owner, ttlMs);
  }

  releaseLock(key: string, owner: string): Promise<void> {
    return this.#cache.releaseLock(key, owner);
  }

  lockReleased(key: string, ms: number): Promise<void> {
    return this.#cache.lockReleased(key, ms);
  }

  ledger(): Promise<LedgerRow[]> {
    return this.#ledger.ledger();
  }

  keptSecret(name: string, candidate: string): Promise<string> {
    return this.#ledger.keptSecret(name, candidate);
  }

  async ping(): Promise<void> {
    await Promise.all([this.#cache.ping(), this.#ledger.ping()]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#cache.close();
    // QUIT lets commands in flight finish; a connection that is not up is just dropped.
    const redisClosed =
      this.redis.status === "ready"
        ? this.redis.quit().catch(() => this.redis.disconnect())
        : Promise.resolve(this.redis.disconnect());
    await Promise.allSettled([redisClosed, this.#ledger.close()]);
  }
}

/** Resolves when the connection is ready or after `ms`, whichever comes first; never rejects. */
function whenReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off("ready", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once("ready", done);
  });
}
