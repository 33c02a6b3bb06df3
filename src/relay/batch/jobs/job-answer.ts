import { JOB_PAGE_SIZE, JobResult, JobResultsAnswer, JobRunningAnswer, RelayErrorBody } from "../../../contract";
import { RelayError } from "../../relay-errors";
import { JobState, JobStore } from "./job-store";

/*
 * A job's answer in Power Automate's asynchronous pattern: 202 with Location and Retry-After while
 * it runs (the flow polls the Location after that many seconds), 200 with its results once it is
 * done or cancelled, a page at a time.
 */

export interface JobReply {
  status: 200 | 202;
  headers: Record<string, string>;
  body: JobRunningAnswer | JobResultsAnswer;
}

export interface AnswerOptions {
  /** RELAY_PUBLIC_URL: Power Automate's gateway resolves the Location against the connector's host, not ours. */
  publicUrl: string;
  /** The pacing (RELAY_UPSTREAM_RPS): how long the items left take at most, which Retry-After follows. */
  upstreamRps: number;
}

/** Seconds to wait before asking again: what the items left take at the relay's pacing, 1 to 60. */
export function retryAfterSeconds(job: JobState, upstreamRps: number): number {
  return Math.min(60, Math.max(1, Math.ceil((job.total - job.done) / upstreamRps)));
}

/** The cursor of a page of results: the index of its first item, as GET /v1/jobs/{id}?cursor= takes it. */
export function cursorOf(value: unknown, total: number): number {
  if (value === undefined) return 0;
  if (
    typeof value === "string" &&
    /^\d{1,9}$/.test(value) &&
    Number(value) < total &&
    Number(value) % JOB_PAGE_SIZE === 0
  )
    return Number(value);
  const message = `must be the \`next\` of the job's previous page; got ${JSON.stringify(value)?.slice(0, 40)}`;
  throw new RelayError("STR_BAD_REQUEST", `Invalid cursor: ${message}`, { fields: [{ path: "cursor", message }] });
}

/**
 * An item a cancelled job did not answer: its call was not sent, or was on its way (then it is in the
 * ledger, and its answer in the cache, free to ask for again). The client's code for a cancel, so
 * the cells, the pane and the recipes read it as they read every other cancel.
 */
const UNANSWERED: RelayErrorBody = {
  success: false,
  error: {
    code: "STR_CANCELLED",
    message:
      "The job was cancelled before this item was answered: its call was not sent, or was on its way and is in the ledger, its answer in the cache.",
  },
};

export async function jobReply(store: JobStore, job: JobState, cursor: unknown, o: AnswerOptions): Promise<JobReply> {
  const progress = { done: job.done, total: job.total };
  if (job.status === "running") {
    return {
      status: 202,
      headers: {
        location: `${o.publicUrl}/v1/jobs/${job.id}`,
        "retry-after": String(retryAfterSeconds(job, o.upstreamRps)),
      },
      body: { jobId: job.id, status: "running", progress },
    };
  }
  const from = cursorOf(cursor, job.total);
  const stored = await store.results(job.id, from, Math.min(JOB_PAGE_SIZE, job.total - from));
  const results = stored.map((r) => (r ?? UNANSWERED) as JobResult);
  const next = from + JOB_PAGE_SIZE < job.total ? String(from + JOB_PAGE_SIZE) : undefined;
  return {
    status: 200,
    headers: {},
    body: {
      jobId: job.id,
      status: job.status,
      progress,
      results,
      ...(next ? { next } : {}),
      expiresAt: new Date(job.expiresAt ?? Date.now()).toISOString(),
    },
  };
}
