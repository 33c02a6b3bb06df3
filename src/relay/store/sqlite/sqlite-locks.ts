import type Database from "better-sqlite3";
import { LockReleases } from "../lock-releases";
import { LockStore } from "../store";

/*
 * The request locks of processes sharing the SQLite file (locks_v1): the row is the lock, so they
 * agree on it. A dead process's locks are freed by the sweep (sqlite-liveness.ts).
 */

export class SqliteLocks implements LockStore {
  readonly #acquire;
  readonly #release;
  readonly #releases = new LockReleases();

  constructor(db: Database.Database) {
    // Taken when free, expired, or already ours.
    this.#acquire = db.prepare(
      "INSERT INTO locks_v1 (key, owner, until) VALUES (@key, @owner, @until) ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, until = excluded.until WHERE locks_v1.owner = excluded.owner OR locks_v1.until <= @now",
    );
    this.#release = db.prepare("DELETE FROM locks_v1 WHERE key = ? AND owner = ?");
  }

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    return this.#acquire.run({ key, owner, until: now + ttlMs, now }).changes > 0;
  }

  async release(key: string, owner: string): Promise<void> {
    this.#release.run(key, owner);
    this.#releases.released(key);
  }

  /** Releases in this process wake at once; those of another process on the file, when `ms` runs out. */
  released(key: string, ms: number): Promise<void> {
    return this.#releases.wait(key, ms);
  }
}
