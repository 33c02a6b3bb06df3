import type Database from "better-sqlite3";
import { JobStatus } from "../../../contract";
import { JobOptions, JobState, JobStore, JobWork, NewJob } from "../../batch/jobs/job-store";

/*
 * Jobs in the SQLite store (tables jobs_v1 and job_results_v1, sqlite-schema.ts), on this machine's
 * clock, which every process on the file shares. Statements are prepared once.
 */

interface JobRow {
  id: string;
  caller_id: string;
  status: JobStatus;
  total: number;
  expires_at: number | null;
  lease_until: number;
  done: number;
}

export class SqliteJobs implements JobStore {
  readonly #db: Database.Database;
  readonly #insert;
  readonly #get;
  readonly #work;
  readonly #answered;
  readonly #putResult;
  readonly #results;
  readonly #finish;
  readonly #claim;
  readonly #orphans;
  readonly #renew;
  readonly #release;
  readonly #sweepResults;
  readonly #sweepJobs;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO jobs_v1 (id, caller_id, items, options, total, status, runner, lease_until, created_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
    );
    this.#get = db.prepare<[string, string, number], JobRow>(
      `SELECT id, caller_id, status, total, expires_at, lease_until,
         (SELECT count(*) FROM job_results_v1 WHERE job_id = jobs_v1.id) AS done
       FROM jobs_v1 WHERE id = ? AND caller_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
    );
    this.#work = db.prepare<[string], { caller_id: string; items: string; options: string }>(
      "SELECT caller_id, items, options FROM jobs_v1 WHERE id = ?",
    );
    this.#answered = db.prepare<[string], { idx: number }>("SELECT idx FROM job_results_v1 WHERE job_id = ?");
    this.#putResult = db.prepare("INSERT OR IGNORE INTO job_results_v1 (job_id, idx, body) VALUES (?, ?, ?)");
    this.#results = db.prepare<[string, number, number], { idx: number; body: string }>(
      "SELECT idx, body FROM job_results_v1 WHERE job_id = ? AND idx >= ? AND idx < ? ORDER BY idx",
    );
    this.#finish = db.prepare(
      "UPDATE jobs_v1 SET status = ?, expires_at = ?, runner = NULL, lease_until = 0 WHERE id = ? AND status = 'running'",
    );
    this.#claim = db.prepare(
      `UPDATE jobs_v1 SET runner = ?, lease_until = ? WHERE id = ? AND status = 'running'
         AND (lease_until <= ? OR runner = ?)`,
    );
    this.#orphans = db.prepare<[number, number], { id: string }>(
      "SELECT id FROM jobs_v1 WHERE status = 'running' AND lease_until <= ? LIMIT ?",
    );
    this.#renew = db.prepare("UPDATE jobs_v1 SET lease_until = ? WHERE id = ? AND runner = ? AND status = 'running'");
    this.#release = db.prepare(
      "UPDATE jobs_v1 SET runner = NULL, lease_until = 0 WHERE id = ? AND runner = ? AND status = 'running'",
    );
    this.#sweepResults = db.prepare(
      "DELETE FROM job_results_v1 WHERE job_id IN (SELECT id FROM jobs_v1 WHERE expires_at <= ?)",
    );
    this.#sweepJobs = db.prepare("DELETE FROM jobs_v1 WHERE expires_at <= ?");
  }

  async create(job: NewJob): Promise<void> {
    const now = Date.now();
    this.#insert.run(
      job.id,
      job.callerId,
      JSON.stringify(job.items),
      JSON.stringify(job.options),
      job.items.length,
      job.runner,
      now + job.leaseMs,
      now,
    );
  }

  async get(id: string, callerId: string): Promise<JobState | undefined> {
    const now = Date.now();
    const row = this.#get.get(id, callerId, now);
    if (!row) return undefined;
    return {
      id: row.id,
      callerId: row.caller_id,
      status: row.status,
      total: row.total,
      done: row.done,
      expiresAt: row.expires_at ?? undefined,
      leased: row.lease_until > now,
    };
  }

  async work(id: string): Promise<JobWork | undefined> {
    const row = this.#work.get(id);
    if (!row) return undefined;
    return {
      callerId: row.caller_id,
      items: JSON.parse(row.items) as unknown[],
      options: JSON.parse(row.options) as JobOptions,
      answered: this.#answered.all(id).map((r) => r.idx),
    };
  }

  async putResults(id: string, results: readonly { index: number; body: unknown }[]): Promise<void> {
    this.#db.transaction(() => {
      for (const r of results) this.#putResult.run(id, r.index, JSON.stringify(r.body));
    })();
  }

  async results(id: string, from: number, count: number): Promise<unknown[]> {
    const out: unknown[] = Array.from({ length: count }, () => null);
    for (const row of this.#results.all(id, from, from + count)) out[row.idx - from] = JSON.parse(row.body) as unknown;
    return out;
  }

  async finish(id: string, status: Exclude<JobStatus, "running">, ttlMs: number): Promise<boolean> {
    return this.#finish.run(status, Date.now() + ttlMs, id).changes > 0;
  }

  async claim(id: string, runner: string, leaseMs: number): Promise<boolean> {
    const now = Date.now();
    return this.#claim.run(runner, now + leaseMs, id, now, runner).changes > 0;
  }

  async orphans(limit: number): Promise<string[]> {
    return this.#orphans.all(Date.now(), limit).map((r) => r.id);
  }

  async renew(ids: readonly string[], runner: string, leaseMs: number): Promise<string[]> {
    const until = Date.now() + leaseMs;
    const stopped: string[] = [];
    for (const id of ids) {
      if (this.#renew.run(until, id, runner).changes === 0) stopped.push(id);
    }
    return stopped;
  }

  async release(id: string, runner: string): Promise<void> {
    this.#release.run(id, runner);
  }

  async sweep(): Promise<number> {
    const now = Date.now();
    return this.#db.transaction(() => {
      this.#sweepResults.run(now);
      return this.#sweepJobs.run(now).changes;
    })();
  }
}
