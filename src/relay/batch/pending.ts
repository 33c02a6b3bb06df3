import { PendingBody, PendingLine } from "../../contract";

/*
 * The batch deadline's side of a batch answer: when it ends, and the line an item still running
 * gets then (http-api.md, "Long batches: the deadline and pending items").
 */

/**
 * When, after the batch arrived, its answer is ended: the deadline bounds how long the caller's
 * request lasts, and the pending lines written at the end (one per item still running, often
 * thousands) take time to reach a busy caller; a tenth of the deadline, at most 2 s, is kept for them.
 */
export function closingDelayMs(deadlineMs: number | undefined): number {
  if (deadlineMs === undefined) return 2 ** 31 - 1;
  return deadlineMs - Math.min(deadlineMs / 10, 2000);
}

/** Seconds a client waits before asking again for the items a batch left pending. */
export const PENDING_RETRY_SECONDS = 1;

/**
 * The line of an item still running: a pending refresh carries the `freshSince` (epoch ms) to ask
 * again with, and an item that started its call the call's name.
 */
export function pendingLine(index: number, freshSinceMs: number | undefined, call: string | undefined): PendingLine {
  return {
    index,
    status: 202,
    body: {
      ...pendingBody(freshSinceMs === undefined ? undefined : new Date(freshSinceMs).toISOString()),
      ...(call ? { call } : {}),
    },
  };
}

/**
 * How long an item answered as pending keeps its call alive for its caller to ask again, ms: the
 * client asks again after PENDING_RETRY_SECONDS; past this, a call not sent yet that no one asked
 * for again is not sent (single-flight.ts).
 */
export const PENDING_LEASE_MS = 15_000;

function pendingBody(freshSince: string | undefined): PendingBody {
  return {
    success: false,
    pending: true,
    // Short: at the deadline a large batch gets one such line per item still running, and the whole
    // answer must reach the caller within its time limit.
    message: `Still running at this answer's time limit; ask again${freshSince ? " with this freshSince" : ""}: it is not sent twice.`,
    retryAfterSeconds: PENDING_RETRY_SECONDS,
    ...(freshSince ? { freshSince } : {}),
  };
}
