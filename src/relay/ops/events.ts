import type { FastifyBaseLogger } from "fastify";
import { Operation, RelayAnswer, RelayErrorCode, centsToUSD } from "../../contract";
import type { Caller } from "../callers/caller";
import { RelayError } from "../relay-errors";
import { RelayMetrics } from "./metrics";
import { Outcome } from "../upstream/outcome";
import { REDACTED } from "../upstream/redact";
import { UpstreamResult } from "../upstream/upstream-call";

/*
 * What the relay did, as log lines an operator can filter on: every line the relay writes has a
 * stable `event` name (EVENTS) and, where there is one, the `code` (STR_*) the caller was given.
 * Lines name the caller by its token's id (tokens.ts `tokenId`), never the token; they carry no
 * request bodies and no error text a caller sent. docs/relay.md (Operating: logs) lists each
 * event and its fields; names are never reused for another meaning.
 */

/** The `event` name of every line the relay writes, one per kind of line. */
export const EVENTS = {
  started: "relay.started",
  stopping: "relay.stopping",
  heartbeatFailed: "relay.heartbeat_failed",
  server: "server.log",
  storeUnavailable: "store.unavailable",
  request: "http.request",
  internalError: "request.internal_error",
  refused: "request.refused",
  billed: "call.billed",
  free: "call.free",
  failed: "call.failed",
  unknown: "call.outcome_unknown",
  authFailed: "upstream.auth_failed",
  throttled: "upstream.throttled",
  retry: "upstream.retry",
  cached: "analysis.cached",
  batch: "batch.done",
  jobFailed: "job.failed",
} as const;

export type EventName = (typeof EVENTS)[keyof typeof EVENTS];

/** Why a request (or a batch item) was refused before anything was sent, by its code. */
export type RefusalReason = "budget" | "validation" | "caller-rate" | "unknown-outcome" | "access";
const REFUSALS: Partial<Record<RelayErrorCode, RefusalReason>> = {
  STR_BUDGET_EXCEEDED: "budget",
  STR_VALIDATION: "validation",
  STR_BAD_REQUEST: "validation",
  STR_BODY_TOO_LARGE: "validation",
  STR_BATCH_TOO_LARGE: "validation",
  STR_UNSUPPORTED_MEDIA_TYPE: "validation",
  STR_CALLER_RATE_LIMITED: "caller-rate",
  STR_OUTCOME_UNKNOWN: "unknown-outcome",
  STR_UNAUTHORIZED: "access",
  STR_TOKEN_IN_URL: "access",
  STR_ORIGIN_NOT_ALLOWED: "access",
  STR_HOST_NOT_ALLOWED: "access",
};

/** Where a refusal or an analysis happened: the caller, and for batch items the operation and index. */
export interface EventContext {
  caller?: Caller | undefined;
  operation?: Operation | undefined;
  /** The item's index in its batch. */
  index?: number | undefined;
}

/** A line for a refused request or item; nothing when the error is not a refusal. */
export function logRefusal(log: FastifyBaseLogger, error: RelayError, context: EventContext): void {
  const reason = REFUSALS[error.code];
  if (!reason) return;
  const level = reason === "validation" || reason === "unknown-outcome" ? "info" : "warn";
  log[level](
    {
      event: EVENTS.refused,
      code: error.code,
      reason,
      ...fieldsOf(context),
      // Field paths only: the messages may quote what the caller sent.
      ...(error.fields ? { fields: error.fields.map((f) => f.path) } : {}),
    },
    `refused (${reason}): ${error.code}`,
  );
}

function fieldsOf(context: EventContext) {
  return {
    ...(context.caller ? { caller: context.caller.id } : {}),
    ...(context.operation ? { operation: context.operation } : {}),
    ...(context.index !== undefined ? { index: context.index } : {}),
  };
}

/** What the gateway reports as it calls the service (gateway.ts, sender.ts). */
export interface CallEvents {
  /** An attempt ended: answered with a status, or failed; `seconds` from sending to its end. */
  attempted(op: Operation, result: UpstreamResult, attempt: number, seconds: number): void;
  /** The attempt is sent again after `delayMs` (only where that cannot bill twice: retry-rule.ts). */
  retrying(op: Operation, result: UpstreamResult, attempt: number, delayMs: number): void;
  /** A call ended, retries included: once per call, whoever else shared it. */
  callEnded(op: Operation, outcome: Outcome, caller: Caller | undefined): void;
}

export class RelayEvents implements CallEvents {
  constructor(
    readonly log: FastifyBaseLogger,
    readonly metrics: RelayMetrics,
  ) {}

  attempted(op: Operation, result: UpstreamResult, attempt: number, seconds: number): void {
    const status = statusOf(result);
    this.metrics.upstreamCalls.inc({ status });
    this.metrics.upstreamDuration.observe({ operation: op, status }, seconds);
    if (result.kind === "answer" && result.status === 429) {
      this.log.warn(
        {
          event: EVENTS.throttled,
          code: "STR_UPSTREAM_THROTTLED",
          status: 429,
          operation: op,
          attempt,
          retryAfter: loggableRetryAfter(result.headers["retry-after"]),
        },
        `the service throttled a ${op} call (429)`,
      );
    }
  }

  retrying(op: Operation, result: UpstreamResult, attempt: number, delayMs: number): void {
    const status = statusOf(result);
    this.metrics.upstreamRetries.inc({ status });
    this.log.info(
      { event: EVENTS.retry, operation: op, attempt: attempt + 1, after: status, delayMs },
      `retrying a ${op} call after ${status} (attempt ${attempt + 1} in ${delayMs} ms)`,
    );
  }

  callEnded(op: Operation, outcome: Outcome, caller: Caller | undefined): void {
    const base = { operation: op, ...(caller ? { caller: caller.id } : {}), status: outcome.status };
    const code = "error" in outcome ? outcome.error.code : undefined;
    const usd = centsToUSD(outcome.charge.cents);
    if (outcome.state === "billed") {
      const analysisId = "envelope" in outcome ? outcome.envelope.data?._id : undefined;
      this.log.info(
        { event: EVENTS.billed, ...base, costUSD: usd, analysisId, cached: false, ...(code ? { code } : {}) },
        `billed ${usd.toFixed(2)} USD for ${op}`,
      );
    } else if (outcome.state === "unknown") {
      this.log.error(
        { event: EVENTS.unknown, ...base, code, maxUSD: usd, billing: "unknown" },
        `the outcome of a ${op} call is unknown: it may have billed up to ${usd.toFixed(2)} USD (${code})`,
      );
    } else if (code === "STR_UPSTREAM_AUTH") {
      this.log.error(
        { event: EVENTS.authFailed, ...base, code },
        `the service refused the relay's API key (${outcome.status}): check STR_API_KEY`,
      );
    } else if (code) {
      this.log.warn(
        { event: EVENTS.failed, ...base, code, state: outcome.state, billing: "not-billed" },
        `a ${op} call failed, not billed (${code})`,
      );
    } else {
      this.log.info({ event: EVENTS.free, ...base, costUSD: 0 }, `a ${op} call was answered free`);
    }
  }

  /**
   * An analysis answered to a caller (a single request or a batch item): counted by code and by
   * cache use. A refused batch item is logged here; a refused request, by the error handler (app.ts).
   */
  analysisEnded(log: FastifyBaseLogger, context: EventContext, result: RelayAnswer | RelayError): void {
    if (result instanceof RelayError) {
      this.metrics.items.inc({ code: result.code });
      if (context.index !== undefined) logRefusal(log, result, context);
      return;
    }
    this.metrics.items.inc({ code: "OK" });
    if (result.relay.shared) this.metrics.sharedFlights.inc();
    if (!result.relay.cached) return void this.metrics.cacheMisses.inc();
    log.debug(
      { event: EVENTS.cached, ...fieldsOf(context), costUSD: 0, cached: true, fetchedAt: result.relay.fetchedAt },
      "answered from the cache, not billed",
    );
  }

  /** A batch item left pending at its answer's deadline (its work goes on; asked again, it is answered). */
  analysisPending(): void {
    this.metrics.items.inc({ code: "PENDING" });
  }
}

/** Seconds or an HTTP date, as the header should hold; any other text is the service's and could carry a secret. */
function loggableRetryAfter(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const readable =
    /^\d{1,10}$/.test(value) || /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value);
  return readable ? value : REDACTED;
}

function statusOf(result: UpstreamResult): string {
  return result.kind === "answer" ? String(result.status) : result.failure.code;
}
