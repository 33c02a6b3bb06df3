import type { JobStatus, Priority } from "../../../contract";

/*
 * What the relay's store keeps of jobs: each job's items as they were posted, each item's result as
 * it comes, and who runs the job (a lease, renewed while it runs). The SQLite store and the shared
 * store (Postgres) implement it alike; times the store judges (leases, expiry) are on its own clock.
 */

/** How long a job is kept once done or cancelled: its caller has a day to read it (RelayConfig.jobTtlMs). */
export const JOB_TTL_MS = 24 * 3_600_000;

/** How a job's items are run: a batch's options. */
export interface JobOptions {
  maxComparables?: number | undefined;
  priority: Priority;
}

export interface NewJob {
  id: string;
  /** The token id that started it: only it can read or cancel the job. */
  callerId: string;
  /** The items as posted (each a batch item), read again when a job resumes elsewhere. */
  items: unknown[];
  options: JobOptions;
  /** The replica that runs it first, and for how long its lease holds. */
  runner: string;
  leaseMs: number;
}

/** A job as its caller sees it, without its items or results. */
export interface JobState {
  id: string;
  callerId: string;
  status: JobStatus;
  total: number;
  /** Items answered so far. */
  done: number;
  /** When the job is forgotten (epoch ms), once done or cancelled. */
  expiresAt: number | undefined;
  /** True while the lease of the replica running it holds; a running job without one is resumed. */
  leased: boolean;
}

export interface JobWork {
  callerId: string;
  items: unknown[];
  options: JobOptions;
  /** The items already answered: a resumed job runs the rest. */
  answered: number[];
}

export interface JobStore {
  create(job: NewJob): Promise<void>;
  /** The job if `callerId` started it and it has not expired. */
  get(id: string, callerId: string): Promise<JobState | undefined>;
  work(id: string): Promise<JobWork | undefined>;
  /** Keeps items' results (a batch line's body each); an item answered before keeps its first. */
  putResults(id: string, results: readonly { index: number; body: unknown }[]): Promise<void>;
  /** `count` results from item `from` on (batch lines' bodies), null where an item has none. */
  results(id: string, from: number, count: number): Promise<unknown[]>;
  /** Ends a running job: done (every item answered) or cancelled; it expires `ttlMs` later. False if it was not running. */
  finish(id: string, status: Exclude<JobStatus, "running">, ttlMs: number): Promise<boolean>;
  /** Takes the job to run it, if it runs and no other replica's lease holds. */
  claim(id: string, runner: string, leaseMs: number): Promise<boolean>;
  /** Running jobs whose runner's lease ran out (it stopped or died). */
  orphans(limit: number): Promise<string[]>;
  /** Renews `runner`'s leases on these jobs; returns those it no longer runs (cancelled, or taken over). */
  renew(ids: readonly string[], runner: string, leaseMs: number): Promise<string[]>;
  /** Gives up `runner`'s lease (a relay stopping), so the next start resumes the job at once. */
  release(id: string, runner: string): Promise<void>;
  /** Forgets the jobs past their expiry, with their results; how many. */
  sweep(): Promise<number>;
}
