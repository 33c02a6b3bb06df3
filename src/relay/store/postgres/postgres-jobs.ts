import { JobStatus } from "../../../contract";
import { JobOptions, JobState, JobStore, JobWork, NewJob } from "../../batch/jobs/job-store";
import { PostgresDb } from "./postgres-db";
import { DB_NOW_MS } from "./postgres-migrations";

/*
 * Jobs in Postgres (jobs_v1 and job_results_v1, migration 4), which every replica reads: any of them
 * answers a job's GET, and one whose runner died takes it over. Leases and expiry are judged on the
 * database's clock, as heartbeats are, so replicas whose clocks disagree still agree on them.
 */

interface JobRow {
  id: string;
  caller_id: string;
  status: JobStatus;
  total: number;
  expires_at: string | null;
  leased: boolean;
  done: string;
}

export class PostgresJobs implements JobStore {
  readonly #db: PostgresDb;

  constructor(db: PostgresDb) {
    this.#db = db;
  }

  async create(job: NewJob): Promise<void> {
    await this.#db.query(
      `INSERT INTO ${this.#db.s}.jobs_v1 (id, caller_id, items, options, total, status, runner, lease_until, created_at)
       VALUES ($1, $2, $3, $4, $5, 'running', $6, ${DB_NOW_MS} + $7, ${DB_NOW_MS})`,
      [
        job.id,
        job.callerId,
        JSON.stringify(job.items),
        JSON.stringify(job.options),
        job.items.length,
        job.runner,
        job.leaseMs,
      ],
    );
  }

  async get(id: string, callerId: string): Promise<JobState | undefined> {
    const s = this.#db.s;
    const { rows } = await this.#db.query<JobRow>(
      `SELECT id, caller_id, status, total, expires_at, lease_until > ${DB_NOW_MS} AS leased,
         (SELECT count(*) FROM ${s}.job_results_v1 r WHERE r.job_id = j.id) AS done
       FROM ${s}.jobs_v1 j WHERE id = $1 AND caller_id = $2 AND (expires_at IS NULL OR expires_at > ${DB_NOW_MS})`,
      [id, callerId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      callerId: row.caller_id,
      status: row.status,
      total: row.total,
      done: Number(row.done),
      expiresAt: row.expires_at === null ? undefined : Number(row.expires_at),
      leased: row.leased,
    };
  }

  async work(id: string): Promise<JobWork | undefined> {
    const s = this.#db.s;
    const { rows } = await this.#db.query<{ caller_id: string; items: string; options: string }>(
      `SELECT caller_id, items, options FROM ${s}.jobs_v1 WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const answered = await this.#db.query<{ idx: number }>(`SELECT idx FROM ${s}.job_results_v1 WHERE job_id = $1`, [
      id,
    ]);
    return {
      callerId: row.caller_id,
      items: JSON.parse(row.items) as unknown[],
      options: JSON.parse(row.options) as JobOptions,
      answered: answered.rows.map((r) => r.idx),
    };
  }

  /** One statement for the lot: results come in bursts as sends are answered. */
  async putResults(id: string, results: readonly { index: number; body: unknown }[]): Promise<void> {
    if (results.length === 0) return;
    await this.#db.query(
      `INSERT INTO ${this.#db.s}.job_results_v1 (job_id, idx, body)
       SELECT $1, idx, body FROM unnest($2::integer[], $3::text[]) AS r (idx, body) ON CONFLICT DO NOTHING`,
      [id, results.map((r) => r.index), results.map((r) => JSON.stringify(r.body))],
    );
  }

  async results(id: string, from: number, count: number): Promise<unknown[]> {
    const { rows } = await this.#db.query<{ idx: number; body: string }>(
      `SELECT idx, body FROM ${this.#db.s}.job_results_v1 WHERE job_id = $1 AND idx >= $2 AND idx < $3 ORDER BY idx`,
      [id, from, from + count],
    );
    const out: unknown[] = Array.from({ length: count }, () => null);
    for (const row of rows) out[row.idx - from] = JSON.parse(row.body) as unknown;
    return out;
  }

  async finish(id: string, status: Exclude<JobStatus, "running">, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `UPDATE ${this.#db.s}.jobs_v1 SET status = $2, expires_at = ${DB_NOW_MS} + $3, runner = NULL, lease_until = 0
       WHERE id = $1 AND status = 'running'`,
      [id, status, ttlMs],
    );
    return (rowCount ?? 0) > 0;
  }

  async claim(id: string, runner: string, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `UPDATE ${this.#db.s}.jobs_v1 SET runner = $2, lease_until = ${DB_NOW_MS} + $3
       WHERE id = $1 AND status = 'running' AND (lease_until <= ${DB_NOW_MS} OR runner = $2)`,
      [id, runner, leaseMs],
    );
    return (rowCount ?? 0) > 0;
  }

  async orphans(limit: number): Promise<string[]> {
    const { rows } = await this.#db.query<{ id: string }>(
      `SELECT id FROM ${this.#db.s}.jobs_v1 WHERE status = 'running' AND lease_until <= ${DB_NOW_MS} LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }

  async renew(ids: readonly string[], runner: string, leaseMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.#db.query<{ id: string }>(
      `UPDATE ${this.#db.s}.jobs_v1 SET lease_until = ${DB_NOW_MS} + $3
       WHERE id = ANY($1::text[]) AND runner = $2 AND status = 'running' RETURNING id`,
      [ids, runner, leaseMs],
    );
    const renewed = new Set(rows.map((r) => r.id));
    return ids.filter((id) => !renewed.has(id));
  }

  async release(id: string, runner: string): Promise<void> {
    await this.#db.query(
      `UPDATE ${this.#db.s}.jobs_v1 SET runner = NULL, lease_until = 0 WHERE id = $1 AND runner = $2 AND status = 'running'`,
      [id, runner],
    );
  }

  /** The results go with their job (ON DELETE CASCADE). */
  async sweep(): Promise<number> {
    const { rowCount } = await this.#db.query(`DELETE FROM ${this.#db.s}.jobs_v1 WHERE expires_at <= ${DB_NOW_MS}`);
    return rowCount ?? 0;
  }
}
