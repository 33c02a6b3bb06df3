import { z } from "zod";
import { RelayAnswer, RelayErrorBody } from "./relay-api";

/*
 * Jobs (POST /v1/jobs, docs/http-api.md "Jobs"): a batch run in the background and polled, Power
 * Automate's asynchronous pattern. The request is a batch's body (BatchRequest); these are the answers.
 */

/** A job's name as the relay gives it (a UUID): only the token that started it can read it. */
export const JobId = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
  error: "must be a job's id as POST /v1/jobs gave it (a UUID)",
});

export const JobStatus = z.enum(["running", "done", "cancelled"]);
export type JobStatus = z.infer<typeof JobStatus>;

/** Items answered so far, of all. */
export const JobProgress = z.object({ done: z.number().int().min(0), total: z.number().int().min(1) });
export type JobProgress = z.infer<typeof JobProgress>;

/** 202, while the job runs: ask again at the Location after Retry-After seconds. */
export const JobRunningAnswer = z.object({ jobId: z.string(), status: z.literal("running"), progress: JobProgress });
export type JobRunningAnswer = z.infer<typeof JobRunningAnswer>;

/**
 * One item's result: what a batch line's body holds (the analysis, or the error). An item a
 * cancelled job never answered has the error STR_CANCELLED, so that every result reads alike.
 */
export const JobResult = z.union([RelayAnswer, RelayErrorBody]);
export type JobResult = z.infer<typeof JobResult>;

/** 200, once the job is done or cancelled: a page of results, in the items' order. */
export const JobResultsAnswer = z.object({
  jobId: z.string(),
  status: z.enum(["done", "cancelled"]),
  progress: JobProgress,
  results: z.array(JobResult),
  /** More results follow: GET the job again with `?cursor=` this value. */
  next: z.string().optional(),
  /** When the relay forgets the job and its results (ISO 8601). */
  expiresAt: z.string(),
});
export type JobResultsAnswer = z.infer<typeof JobResultsAnswer>;

/** Most results in one page of a job's answer. */
export const JOB_PAGE_SIZE = 500;
