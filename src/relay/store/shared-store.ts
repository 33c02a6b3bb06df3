import Redis from "ioredis";
import { Pool } from "pg";
import { PostgresAnalyses } from "./postgres/postgres-analyses";
import { PostgresDb } from "./postgres/postgres-db";
import { PostgresJobs } from "./postgres/postgres-jobs";
import { PostgresLedger } from "./postgres/postgres-ledger";
import { PostgresLiveness } from "./postgres/postgres-liveness";
import { RedisCache } from "./redis/redis-cache";
import { RedisLocks } from "./redis/redis-locks";
import { STORE_TIMEOUT_MS, postgresPool, redisClient, runRedis } from "./shared-clients";
import { RelayStore } from "./store";

/*
 * The store of relay replicas: Redis for cached answers and request locks (and, through
 * `redis`, the pacing bucket), Postgres for the ledger, the analyses, the heartbeats, jobs and
 * secrets, in one schema per namespace. The replicas keep nothing else, so any of them can answer
 * any request and any can die.
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
  readonly cache: RedisCache;
  readonly locks: RedisLocks;
  readonly analyses: PostgresAnalyses;
  readonly ledger: PostgresLedger;
  readonly liveness: PostgresLiveness;
  readonly jobs: PostgresJobs;
  readonly #db: PostgresDb;
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
      store.#db.ready(),
      whenReady(store.redis, STORE_TIMEOUT_MS),
      whenReady(store.locks.listener, STORE_TIMEOUT_MS),
    ]);
    return store;
  }

  private constructor(redis: Redis, pool: Pool, options: SharedStoreOptions) {
    this.redis = redis;
    this.namespace = options.namespace;
    this.cache = new RedisCache(redis, options.namespace);
    this.locks = new RedisLocks(redis, options.namespace, options.lockLeaseMs);
    // The namespace is the schema: lowercase letters, digits and _ (postgres-db.ts checks it).
    this.#db = new PostgresDb(pool, options.namespace);
    this.analyses = new PostgresAnalyses(this.#db);
    this.ledger = new PostgresLedger(this.#db);
    this.liveness = new PostgresLiveness(this.#db, this.ledger);
    this.jobs = new PostgresJobs(this.#db);
  }

  /** The first replica to ask keeps its candidate; the rest read it. */
  async keptSecret(name: string, candidate: string): Promise<string> {
    const s = this.#db.s;
    await this.#db.query(`INSERT INTO ${s}.secrets_v1 (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [
      name,
      candidate,
    ]);
    const { rows } = await this.#db.query<{ value: string }>(`SELECT value FROM ${s}.secrets_v1 WHERE name = $1`, [
      name,
    ]);
    return (rows[0] as { value: string }).value;
  }

  async ping(): Promise<void> {
    await Promise.all([runRedis(this.redis, () => this.redis.ping()), this.#db.ping()]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.locks.close();
    // QUIT lets commands in flight finish; a connection that is not up is just dropped.
    const redisClosed =
      this.redis.status === "ready"
        ? this.redis.quit().catch(() => this.redis.disconnect())
        : Promise.resolve(this.redis.disconnect());
    await Promise.allSettled([redisClosed, this.#db.close()]);
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
