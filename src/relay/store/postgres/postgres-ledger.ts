import { Pool } from "pg";
import { PostgresAnalyses } from "./postgres-analyses";
import { PostgresDb } from "./postgres-db";
import { PostgresJobs } from "./postgres-jobs";
import { PostgresLedgerReads } from "./postgres-ledger-reads";
import { PostgresLiveness } from "./postgres-liveness";
import { PostgresReservations } from "./postgres-reservations";
import {
  CallEnd,
  CallStart,
  CallerUsage,
  LastCall,
  LedgerRow,
  Reservation,
  StoredAnalysis,
  UsageTotals,
} from "../store";

/*
 * The Postgres half of the shared store: the ledger of every call, the analyses by id, and the
 * replicas' heartbeats, in one schema per namespace. Tables carry a version in their names, as in
 * the SQLite store. It composes the connection and its migrations (postgres-db.ts), the analyses
 * (postgres-analyses.ts), a call's reservation and settlement (postgres-reservations.ts), the
 * heartbeats and the sweep (postgres-liveness.ts), and the reads (postgres-ledger-reads.ts). Times
 * are epoch milliseconds (bigint), as the interface has them.
 */

/** The ledger, analyses and heartbeats of relay replicas, in Postgres. */
export class PostgresLedger {
  /** Jobs, in the same schema (postgres-jobs.ts). */
  readonly jobs: PostgresJobs;
  readonly #db: PostgresDb;
  readonly #analyses: PostgresAnalyses;
  readonly #reservations: PostgresReservations;
  readonly #liveness: PostgresLiveness;
  readonly #reads: PostgresLedgerReads;

  /** `schema` is the namespace: lowercase letters, digits and _. */
  constructor(pool: Pool, schema: string) {
    this.#db = new PostgresDb(pool, schema);
    this.#analyses = new PostgresAnalyses(this.#db);
    this.#reservations = new PostgresReservations(this.#db);
    this.#liveness = new PostgresLiveness(this.#db);
    this.#reads = new PostgresLedgerReads(this.#db);
    this.jobs = new PostgresJobs(this.#db);
  }

  /** Runs the migrations now; a failure is kept for the next call to retry. */
  ready(): Promise<void> {
    return this.#db.ready();
  }

  getAnalysis(id: string): Promise<StoredAnalysis | undefined> {
    return this.#analyses.get(id);
  }

  putAnalysis(a: StoredAnalysis): Promise<void> {
    return this.#analyses.put(a);
  }

  reserveCall(
    call: CallStart,
    budgetCents: number,
    dayStart: number,
    callerBudgetCents?: number,
  ): Promise<Reservation> {
    return this.#reservations.reserveCall(call, budgetCents, dayStart, callerBudgetCents);
  }

  finishCall(id: string, end: CallEnd): Promise<void> {
    return this.#reservations.finishCall(id, end);
  }

  lastCall(cacheKey: string): Promise<LastCall | undefined> {
    return this.#reads.lastCall(cacheKey);
  }

  usage(since: number): Promise<UsageTotals> {
    return this.#reads.usage(since);
  }

  callerCommittedCents(dayStart: number, callerId: string): Promise<number> {
    return this.#reads.callerCommittedCents(dayStart, callerId);
  }

  usageByCaller(since: number): Promise<CallerUsage[]> {
    return this.#reads.usageByCaller(since);
  }

  /** Each beat also settles the reservations this replica never heard back about. */
  async heartbeat(owner: string, intervalMs: number): Promise<void> {
    await this.#liveness.heartbeat(owner, intervalMs);
    await this.#reservations.settleUnheard();
  }

  settleOrphans(sweeper: string, staleAfterMs: number): Promise<number> {
    return this.#liveness.settleOrphans(sweeper, staleAfterMs);
  }

  ledger(): Promise<LedgerRow[]> {
    return this.#reads.ledger();
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

  ping(): Promise<void> {
    return this.#db.ping();
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}
