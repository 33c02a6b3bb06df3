import type Database from "better-sqlite3";

/*
 * Which processes on the SQLite file are alive (replicas_v1), the sweep that settles a dead one's
 * calls, and the request locks (locks_v1) that make processes sharing the file send a request once.
 *
 * The store's clock is this machine's, which every process on the file shares, and a local file is
 * never away for some of them only: a sweep needs no proof that the sweeper's beats were steady,
 * and a restarted relay settles its dead predecessor's calls at its first beat.
 */

export class SqliteLiveness {
  readonly #heartbeat;
  readonly #acquireLock;
  readonly #releaseLock;
  readonly #settle;

  constructor(db: Database.Database) {
    this.#heartbeat = db.prepare(
      "INSERT INTO replicas_v1 (owner, heartbeat_at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
    );
    // A lock is taken when free, expired, or already ours; the row is the lock, so processes sharing the file agree.
    this.#acquireLock = db.prepare(
      "INSERT INTO locks_v1 (key, owner, until) VALUES (@key, @owner, @until) ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, until = excluded.until WHERE locks_v1.owner = excluded.owner OR locks_v1.until <= @now",
    );
    this.#releaseLock = db.prepare("DELETE FROM locks_v1 WHERE key = ? AND owner = ?");
    const settleOrphans = db.prepare(
      "UPDATE ledger_v2 SET state = 'unknown', error_code = 'STR_OUTCOME_UNKNOWN', finished_at = @now WHERE state = 'pending' AND owner NOT IN (SELECT owner FROM replicas_v1 WHERE heartbeat_at >= @cutoff)",
    );
    // A lock lives as long as its call may (the upstream timeout and a minute), far longer than a
    // replica that stopped heartbeating: its locks go with its calls, as the shared store's leases do.
    const releaseOrphanLocks = db.prepare(
      "DELETE FROM locks_v1 WHERE owner NOT IN (SELECT owner FROM replicas_v1 WHERE heartbeat_at >= @cutoff)",
    );
    // The calls first, then the locks, in one step: whoever takes a freed lock sees its call unknown.
    this.#settle = db.transaction((now: number, cutoff: number): number => {
      const settled = settleOrphans.run({ now, cutoff }).changes;
      releaseOrphanLocks.run({ cutoff });
      return settled;
    });
  }

  heartbeat(owner: string): void {
    this.#heartbeat.run(owner, Date.now());
  }

  /** Marks unknown the pending calls of every owner silent for `staleAfterMs`, and frees its locks. */
  settleOrphans(staleAfterMs: number): number {
    const now = Date.now();
    return this.#settle.immediate(now, now - staleAfterMs);
  }

  acquireLock(key: string, owner: string, ttlMs: number): boolean {
    const now = Date.now();
    return this.#acquireLock.run({ key, owner, until: now + ttlMs, now }).changes > 0;
  }

  releaseLock(key: string, owner: string): void {
    this.#releaseLock.run(key, owner);
  }
}
