import { UpstreamResult } from "./upstream-call";

/*
 * When a call to the service may be tried again — the one place that decides it.
 *
 * Creates are not idempotent and every report is billed, so a call is retried only where the
 * service cannot have processed it. Each verdict says why.
 */

export interface RetryVerdict {
  retry: boolean;
  /** Wait before the next attempt, ms (0 when not retrying). */
  delayMs: number;
  why: string;
}

export interface RetryPolicy {
  /** Attempts in all for connection failures and 503s. 429s are retried until the deadline instead. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000 };

/** Exponential backoff with full jitter, so replicas that failed together do not retry together. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The longest one throttled attempt waits before the next. */
export const MAX_SERVICE_WAIT_MS = 60_000;

/** The shortest wait a Retry-After is held to, doubled on each repeat. */
export const RETRY_AFTER_FLOOR_MS = 1_000;

/**
 * The wait before attempt `attempt + 1` when the service said Retry-After: what it asked, but never
 * under 1 s, 2 s, 4 s … on the first, second, third attempt (at most 60 s). A service that answers
 * "Retry-After: 0" (or a date in the past) to every attempt would otherwise be called back at once,
 * for as long as the call may last; undefined without the header.
 */
export function serviceWaitMs(
  header: string | undefined,
  attempt: number,
  now: number = Date.now(),
): number | undefined {
  const asked = retryAfterMs(header, now);
  if (asked === undefined) return undefined;
  const floor = RETRY_AFTER_FLOOR_MS * 2 ** Math.min(6, Math.max(0, attempt - 1));
  return Math.min(MAX_SERVICE_WAIT_MS, Math.max(asked, floor));
}

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * @param result what the attempt produced
 * @param attempt 1 for the first try
 */
export function retryVerdict(
  result: UpstreamResult,
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random?: () => number,
): RetryVerdict {
  const canTryAgain = attempt < policy.maxAttempts;
  if (result.kind === "failure") {
    const { failure } = result;
    if (failure.code === "UPSTREAM_ABORTED") return { retry: false, delayMs: 0, why: "the relay gave up on the call" };
    if (!failure.sent) {
      return canTryAgain
        ? {
            retry: true,
            delayMs: backoffMs(attempt, policy, random),
            why: "the request never reached the service whole, so it cannot have been processed or billed",
          }
        : { retry: false, delayMs: 0, why: `the service could not be reached in ${attempt} attempts` };
    }
    return {
      retry: false,
      delayMs: 0,
      why: "the request was sent and may have been processed: sending it again could bill twice",
    };
  }
  if (result.status === 429) {
    // Throttled calls are refused before any work, and are not billed: always safe to resend.
    const wait = serviceWaitMs(result.headers["retry-after"], attempt) ?? backoffMs(attempt, policy, random);
    return {
      retry: true,
      delayMs: Math.min(wait, MAX_SERVICE_WAIT_MS),
      why: "429: the service refused the call unprocessed (throttled calls are not billed)",
    };
  }
  if (result.status === 503) {
    return canTryAgain
      ? {
          retry: true,
          delayMs: serviceWaitMs(result.headers["retry-after"], attempt) ?? backoffMs(attempt, policy, random),
          why: "503: the service was unavailable and processed nothing (failed requests are not billed)",
        }
      : { retry: false, delayMs: 0, why: `the service stayed unavailable for ${attempt} attempts` };
  }
  return { retry: false, delayMs: 0, why: "a final answer" };
}
