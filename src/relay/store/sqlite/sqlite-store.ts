import type Database from "better-sqlite3";
import { SqliteCache, moveCacheV1 } from "./sqlite-cache";
import { Checkpointer } from "./sqlite-checkpointer";
import { SqliteJobs } from "./sqlite-jobs";
import { SqliteLedger } from "./sqlite-ledger";
import { LockReleases } from "../lock-releases";
import { SqliteLiveness } from "./sqlite-liveness";
import { PrivateFileRules } from "../private-files";
import { openSqlite } from "./sqlite-schema";
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
} from "../store";

/*
 * The embedded store: one SQLite file in RELAY_DATA_DIR, for a relay that runs alone. It composes
 * the file and its tables (sqlite-schema.ts), the answers (sqlite-cache.ts), the ledger and the
 * budget (sqlite-ledger.ts), the liveness of processes and their locks (sqlite-liveness.ts), and
 * the log's checkpoints on their own thread (sqlite-checkpointer.ts). Statements are prepared once.
 */

/** The RelayStore of a relay that runs alone. */
export class SqliteStore implements RelayStore {
  readonly kind = "sqlite" as const;
  readonly jobs: SqliteJobs;
  readonly #db: Database.Database;
  readonly #cache: SqliteCache;
  readonly #ledger: SqliteLedger;
  readonly #liveness: SqliteLiveness;
  readonly #releases = new LockReleases();
  readonly #ping;
  readonly #keepSecret: Database.Statement<[string, string]>;
  readonly #secret: Database.Statement<[string]>;
  /** Checkpoints the log on its own thread (a file store only). */
  readonly #checkpointer: Checkpointer | undefined;

  /** `file` is a path, or ":memory:" for tests. */
  constructor(file: string, options: { checkpointIntervalMs?: number } & PrivateFileRules = {}) {
    const db = openSqlite(file, options);
    this.#db = db;
    this.#cache = new SqliteCache(db);
    this.#ledger = new SqliteLedger(db);
    this.#liveness = new SqliteLiveness(db);
    this.jobs = new SqliteJobs(db);
    this.#ping = db.prepare("SELECT 1");
    this.#keepSecret = db.prepare("INSERT INTO secrets_v1 (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING");
    this.#secret = db.prepare("SELECT value FROM secrets_v1 WHERE name = ?");
    moveCacheV1(db);
    if (file === ":memory:") return;
    this.#checkpointer = new Checkpointer({
      file,
      ...(options.checkpointIntervalMs !== undefined ? { intervalMs: options.checkpointIntervalMs } : {}),
      // Without its worker the store checkpoints in its commits again, as SQLite does by default.
      onFailure: () => {
        if (db.open) db.pragma("wal_autocheckpoint = 1000");
      },
    });
  }

  async getCached(key: string, options: CacheReadOptions = {}): Promise<CachedAnswer | undefined> {
    return this.#cache.getCached(key, options);
  }

  async putCached(entry: CachedAnswer): Promise<void> {
    this.#cache.putCached(entry);
  }

  async getAnalysis(id: string): Promise<StoredAnalysis | undefined> {
    return this.#cache.getAnalysis(id);
  }

  async putAnalysis(a: StoredAnalysis): Promise<void> {
    this.#cache.putAnalysis(a);
  }

  async reserveCall(
    call: CallStart,
    budgetCents: number,
    dayStart: number,
    callerBudgetCents?: number,
  ): Promise<Reservation> {
    return this.#ledger.reserveCall(call, budgetCents, dayStart, callerBudgetCents);
  }

  async committedCents(dayStart: number): Promise<number> {
    return this.#ledger.committedCents(dayStart);
  }

  async callerCommittedCents(dayStart: number, callerId: string): Promise<number> {
    return this.#ledger.callerCommittedCents(dayStart, callerId);
  }

  /**
   * Also settles a call a sweep marked unknown: a relay whose process was suspended past three
   * beats (a laptop asleep) while another process on the file swept its calls.
   */
  async finishCall(id: string, end: CallEnd): Promise<void> {
    this.#ledger.finishCall(id, end);
  }

  async lastCall(cacheKey: string): Promise<LastCall | undefined> {
    return this.#ledger.lastCall(cacheKey);
  }

  async usage(since: number): Promise<UsageTotals> {
    return this.#ledger.usage(since);
  }

  async usageByCaller(since: number): Promise<CallerUsage[]> {
    return this.#ledger.usageByCaller(since);
  }

  /** On this machine's clock, which every process on the file shares (sqlite-liveness.ts). */
  async heartbeat(owner: string, _intervalMs: number): Promise<void> {
    this.#liveness.heartbeat(owner);
  }

  async settleOrphans(_sweeper: string, staleAfterMs: number): Promise<number> {
    return this.#liveness.settleOrphans(staleAfterMs);
  }

  async acquireLock(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#liveness.acquireLock(key, owner, ttlMs);
  }

  async releaseLock(key: string, owner: string): Promise<void> {
    this.#liveness.releaseLock(key, owner);
    this.#releases.released(key);
  }

  /** Releases in this process wake at once; those of another process on the file, when `ms` runs out. */
  lockReleased(key: string, ms: number): Promise<void> {
    return this.#releases.wait(key, ms);
  }

  async ledger(): Promise<LedgerRow[]> {
    return this.#ledger.ledger();
  }

  async keptSecret(name: string, candidate: string): Promise<string> {
    this.#keepSecret.run(name, candidate);
    return (this.#secret.get(name) as { value: string }).value;
  }

  async ping(): Promise<void> {
    this.#ping.get();
  }

  async close(): Promise<void> {
    await this.#checkpointer?.stop();
    if (this.#db.open) this.#db.close();
  }
}
