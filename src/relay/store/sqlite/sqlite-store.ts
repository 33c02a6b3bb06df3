import type Database from "better-sqlite3";
import { PrivateFileRules } from "../private-files";
import { RelayStore } from "../store";
import { SqliteAnalyses } from "./sqlite-analyses";
import { SqliteCache } from "./sqlite-cache";
import { Checkpointer } from "./sqlite-checkpointer";
import { SqliteJobs } from "./sqlite-jobs";
import { SqliteLedger } from "./sqlite-ledger";
import { SqliteLiveness } from "./sqlite-liveness";
import { SqliteLocks } from "./sqlite-locks";
import { openSqlite } from "./sqlite-schema";

/*
 * The embedded store: one SQLite file in RELAY_DATA_DIR, for a relay that runs alone. It opens the
 * file with its tables (sqlite-schema.ts, which moves older ones: sqlite-migrations.ts), builds
 * each part of the store on it, each with its statements prepared once, and checkpoints the log on
 * its own thread (sqlite-checkpointer.ts).
 */

/** The RelayStore of a relay that runs alone. */
export class SqliteStore implements RelayStore {
  readonly kind = "sqlite" as const;
  readonly cache: SqliteCache;
  readonly analyses: SqliteAnalyses;
  readonly ledger: SqliteLedger;
  readonly liveness: SqliteLiveness;
  readonly locks: SqliteLocks;
  readonly jobs: SqliteJobs;
  readonly #db: Database.Database;
  readonly #ping;
  readonly #keepSecret: Database.Statement<[string, string]>;
  readonly #secret: Database.Statement<[string]>;
  /** Checkpoints the log on its own thread (a file store only). */
  readonly #checkpointer: Checkpointer | undefined;

  /** `file` is a path, or ":memory:" for tests. */
  constructor(file: string, options: { checkpointIntervalMs?: number } & PrivateFileRules = {}) {
    const db = openSqlite(file, options);
    this.#db = db;
    this.cache = new SqliteCache(db);
    this.analyses = new SqliteAnalyses(db);
    this.ledger = new SqliteLedger(db);
    this.liveness = new SqliteLiveness(db);
    this.locks = new SqliteLocks(db);
    this.jobs = new SqliteJobs(db);
    this.#ping = db.prepare("SELECT 1");
    this.#keepSecret = db.prepare("INSERT INTO secrets_v1 (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING");
    this.#secret = db.prepare("SELECT value FROM secrets_v1 WHERE name = ?");
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
