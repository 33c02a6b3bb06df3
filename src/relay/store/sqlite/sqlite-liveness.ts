import type Database from "better-sqlite3";
import { LivenessStore } from "../store";

/*
 * Which processes on the SQLite file are alive (replicas_v1), and the sweep that settles a dead
 * one's calls and frees its request locks (locks_v1, sqlite-locks.ts).
 *
 * The store's clock is this machine's, which every process on the file shares, and a local file is
 * never away for some of them only: a sweep needs no proof that the sweeper's beats were steady,
 * and a restarted relay settles its dead predecessor's calls at its first beat.
 */

export class SqliteLiveness implements LivenessStore {
  readonly #heartbeat;
  readonly #settle;

  constructor(db: Database.Database) {
    this.#heartbeat = db.prepare(
      "INSERT INTO replicas_v1 (owner, heartbeat_at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
    );
    // Pending and unknown calls hold the same against the budget (committed-spend.ts): the running
    // totals stay as they are.
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

  /** On this machine's clock, which every process on the file shares; the interval is not needed. */
  async heartbeat(owner: string, _intervalMs: number): Promise<void> {
    this.#heartbeat.run(owner, Date.now());
  }

  /** Marks unknown the pending calls of every owner silent for `staleAfterMs`, and frees its locks. */
  async settleOrphans(_sweeper: string, staleAfterMs: number): Promise<number> {
    const now = Date.now();
    return this.#settle.immediate(now, now - staleAfterMs);
  }
}
