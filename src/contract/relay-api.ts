import { z } from "zod";
import { MAX_COMPARABLES } from "./analysis";
import { FieldIssue } from "./issues";
import { Operation } from "./operations";

/*
 * The relay's own HTTP interface (docs/http-api.md): what the add-in, the CLI and
 * users' scripts send to it and read back. The relay builds these; src/client parses them.
 */

/**
 * A JSON object, checked but not copied: a looseObject would copy every field of every analysis in a
 * batch answer. The fields are read by src/sheet, which parses and normalises the analysis it reads.
 */
const JsonObject = z.custom<{ [key: string]: unknown }>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  { error: "must be an object" },
);

/** Added by the relay to every analysis answer. */
export const RelayMeta = z.looseObject({
  /** True when the answer came from the relay's cache: nothing was sent or billed. */
  cached: z.boolean(),
  /** What this answer cost now: 0 when cached or shared. */
  costUSD: z.number(),
  /** True when this caller joined an identical call already in flight: the caller that started it carries the cost. */
  shared: z.boolean().optional(),
  /** True when the relay runs on its embedded sandbox: simulated data, not market data. */
  sandbox: z.boolean(),
  /** When the service produced the analysis (ISO 8601). */
  fetchedAt: z.string(),
  /** The operation that produced it. */
  operation: Operation.optional(),
  /** Repairs the relay made to the service's answer shape (observed drift), if any. */
  normalized: z.array(z.string()).optional(),
  /**
   * Present when a cached answer is older than the relay's RELAY_STALE_AFTER_DAYS: still served free,
   * but the cells say how old it is and what fetching it again would cost.
   */
  stale: z.object({ ageDays: z.number().int().min(0), refreshCostUSD: z.number().min(0) }).optional(),
});
export type RelayMeta = z.infer<typeof RelayMeta>;

/**
 * An analysis answer: the service's envelope (`success`, `data`, `warnings`, anything else it
 * sent) plus `relay`. `data` is the normalised analysis; see contract/analysis.ts.
 */
export const RelayAnswer = z.looseObject({
  success: z.boolean(),
  data: JsonObject.optional(),
  warnings: z.array(z.union([z.string(), z.looseObject({})])).optional(),
  relay: RelayMeta,
});
export type RelayAnswer = z.infer<typeof RelayAnswer>;

/**
 * An answer as the add-in's session holds it: the relay's answer as the relay sent it, plus `session`
 * when the session answered a call without asking the relay, so nothing was sent or billed for it:
 * - "remembered": an earlier answer of this session, to the same request;
 * - "computed": worked out in the add-in from a stored analysis (STR.WHATIF).
 * Never on the wire.
 */
export type SessionAnswer = RelayAnswer & { session?: "remembered" | "computed" };

/**
 * Whether an answer is kept for later calls (the relay's cache, the add-in's session): only one that
 * holds an analysis. The one that does not, an enhance whose every AI step failed, was free, and a
 * later try may succeed; kept, it would be the answer for ever.
 */
export function isAnswerToKeep(answer: { data?: unknown }): boolean {
  return answer.data !== undefined && answer.data !== null;
}

/** Every relay error code, with its HTTP status. The table in src/relay/relay-errors.ts gives the messages. */
export const RelayErrorCode = z.enum([
  "STR_VALIDATION",
  "STR_BAD_REQUEST",
  "STR_UNAUTHORIZED",
  "STR_TOKEN_IN_URL",
  "STR_BUDGET_EXCEEDED",
  "STR_CALLER_BUDGET_EXCEEDED",
  "STR_ORIGIN_NOT_ALLOWED",
  "STR_HOST_NOT_ALLOWED",
  "STR_NOT_FOUND",
  "STR_ANALYSIS_NOT_FOUND",
  "STR_OUTCOME_UNKNOWN",
  "STR_NOT_SENT",
  "STR_BODY_TOO_LARGE",
  "STR_BATCH_TOO_LARGE",
  "STR_UNSUPPORTED_MEDIA_TYPE",
  "STR_CALLER_RATE_LIMITED",
  "STR_UPSTREAM_REJECTED",
  "STR_UPSTREAM_AUTH",
  "STR_UPSTREAM_THROTTLED",
  "STR_UPSTREAM_FAILED",
  "STR_UPSTREAM_BAD_ANSWER",
  "STR_UPSTREAM_UNUSABLE",
  "STR_UPSTREAM_TIMEOUT",
  "STR_STORE_UNAVAILABLE",
  "STR_SHUTTING_DOWN",
  "STR_INTERNAL",
]);
export type RelayErrorCode = z.infer<typeof RelayErrorCode>;

/**
 * Failures the client itself sees, before or instead of a relay answer. They share the relay's
 * error shape and code style so the cells, the pane and the CLI read one vocabulary.
 */
export const ClientErrorCode = z.enum([
  /** No relay URL or token yet. */
  "STR_NOT_CONFIGURED",
  /** The relay could not be reached (down, wrong URL, blocked). */
  "STR_RELAY_UNREACHABLE",
  /** The relay did not answer within the client's time limit. */
  "STR_RELAY_TIMEOUT",
  /** The relay answered something that is not its documented shape. */
  "STR_RELAY_BAD_ANSWER",
  /** The caller cancelled (a deleted cell, Cancel in the pane, Ctrl-C). */
  "STR_CANCELLED",
  /** A screening row outside the plausibility bounds, held back until the user confirms (never sent). */
  "STR_UNUSUAL_INPUT",
  /** A decision computed locally (STR.MAXBID) has no answer: no price meets the target (never sent). */
  "STR_TARGET_UNREACHABLE",
]);
export type ClientErrorCode = z.infer<typeof ClientErrorCode>;

/** What a failed call cost: nothing, its price, or what nobody can know (it was sent and its answer lost). */
export const Billing = z.enum(["not-billed", "billed", "unknown"]);
export type Billing = z.infer<typeof Billing>;

/** The one error shape of the relay: `{"success": false, "error": {code, message, fields?, billing?}}`. */
export const RelayErrorBody = z.object({
  success: z.literal(false),
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    fields: z.array(FieldIssue).optional(),
    /** On errors of a call to the service: what the relay knows of its bill (STR_UPSTREAM_FAILED can be any). */
    billing: Billing.optional(),
  }),
});
export type RelayErrorBody = z.infer<typeof RelayErrorBody>;

/** One item of POST /v1/batch: an operation (a strategy, or enhance) and its body as the service takes it. */
/** A call's name as the relay gives it in a pending line (a UUID). */
export const CallId = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
  error: "must be the call of a pending line (a UUID)",
});

/** POST /v1/batch/cancel: the calls a caller's pending items started, to stop if not sent yet. */
export const CancelRequest = z.strictObject({ calls: z.array(CallId).max(10_000) });
export type CancelRequest = z.infer<typeof CancelRequest>;

export const CancelAnswer = z.object({ success: z.literal(true), cancelled: z.number().int().min(0) });
export type CancelAnswer = z.infer<typeof CancelAnswer>;

export const BatchItem = z.strictObject({
  strategy: z.enum(Operation.options, {
    error: (issue) => `must be one of ${Operation.options.join(", ")}; got ${JSON.stringify(issue.input) ?? "nothing"}`,
  }),
  params: z.unknown(),
  /** Bypass the cache: a billed refresh. */
  refresh: z.boolean().optional(),
  /**
   * With `refresh`: an answer fetched at or after this time (ISO 8601) is the refresh asked for, so
   * it is answered instead of sending again. A client asking again for an item a batch left pending
   * sends the `freshSince` of its pending line (see PendingBody).
   */
  freshSince: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date and time, e.g. 2026-11-24T10:00:00.000Z" })
    .optional(),
  /**
   * Asking again for an item a batch left pending: the `call` of its pending line. The answer of
   * that call is this item's, with what it cost (never "cached" or "shared"), and a refresh is
   * satisfied by it.
   */
  call: CallId.optional(),
});
export type BatchItem = z.infer<typeof BatchItem>;

/**
 * How urgent a request is for its caller, when the account's rate is shared (relay.md, "Sharing the
 * account's rate"): each caller's `formula` requests (cells waiting in Excel) are sent before its
 * `bulk` ones (screening a table). It orders one caller's own requests only: callers take turns.
 */
export const Priority = z.enum(["formula", "bulk"], {
  error: (issue) => `must be "formula" or "bulk"; got ${JSON.stringify(issue.input) ?? "nothing"}`,
});
export type Priority = z.infer<typeof Priority>;

/** The header that sets a single analysis request's priority; without it, `formula`. */
export const PRIORITY_HEADER = "x-relay-priority";

/** A batch without `priority` of at most this many items is `formula`; a larger one is `bulk`. */
export const FORMULA_BATCH_MAX_ITEMS = 50;

/** Most items one batch may carry. */
export const MAX_BATCH_ITEMS = 10_000;

export const BatchRequest = z.strictObject({
  items: z.array(z.unknown()).min(1, { error: "must hold at least one item" }),
  /** Estimate only: how many items are cached, how many would be created, what it would cost. */
  dryRun: z.boolean().optional(),
  /**
   * At most this many of `data.comparables` in each line, the nearest first; 0 leaves an empty
   * list. The comparables are most of a line's size: callers that show metrics only (the STR.*
   * cards, screening rows) or a few comparables (str-screen) ask for what they show. The cache and GET /v1/analyses/:id keep them all.
   */
  maxComparables: z.number().int().min(0).max(MAX_COMPARABLES).optional(),
  /**
   * `formula` for cells waiting on the answers (the add-in's batcher), `bulk` for screening (the pane,
   * str-screen). Without it, a batch of at most FORMULA_BATCH_MAX_ITEMS items is `formula`, a larger one `bulk`.
   */
  priority: Priority.optional(),
  /**
   * Answer each item only from the cache or from its call in flight (waiting for it), never send:
   * what a client that stopped asks for the items whose calls may have been sent meanwhile, to be
   * told their answers and costs. An item with neither fails with STR_NOT_SENT, free.
   */
  joinOnly: z.boolean().optional(),
});
export type BatchRequest = z.infer<typeof BatchRequest>;

/**
 * A batch item the relay is still working on when the batch's answer reached its deadline
 * (RELAY_MAX_REQUEST_SECONDS): its work goes on and its answer is kept. Ask for it again, in a new
 * batch, after `retryAfterSeconds`: it joins the same work, and is never sent to the service twice.
 */
export const PendingBody = z.object({
  success: z.literal(false),
  pending: z.literal(true),
  message: z.string(),
  retryAfterSeconds: z.number(),
  /** For a refresh: send it again with `refresh: true` and this `freshSince`. */
  freshSince: z.string().optional(),
  /**
   * The call this item started, when it did: send the item again with this `call` to get that
   * call's answer and cost; POST /v1/batch/cancel with it to stop it if it has not been sent.
   */
  call: z.string().optional(),
});
export type PendingBody = z.infer<typeof PendingBody>;

export const PendingLine = z.object({ index: z.number().int().min(0), status: z.literal(202), body: PendingBody });
export type PendingLine = z.infer<typeof PendingLine>;

/** One NDJSON line of a batch answer, written as its item completes. */
export const BatchLine = z.object({
  index: z.number().int().min(0),
  status: z.number().int(),
  body: z.union([RelayAnswer, RelayErrorBody]),
});
export type BatchLine = z.infer<typeof BatchLine>;

/** Any line of a batch answer: an item's answer or error, or a pending item to ask for again. */
export const BatchStreamLine = z.union([PendingLine, BatchLine]);
export type BatchStreamLine = z.infer<typeof BatchStreamLine>;

export function isPendingLine(line: BatchStreamLine): line is PendingLine {
  return line.status === 202 && (line.body as { pending?: unknown }).pending === true;
}

export const DryRunAnswer = z.object({
  items: z.number().int(),
  /** Answered from the cache: free. */
  cached: z.number().int(),
  /** Would be sent to the service (distinct requests). */
  toCreate: z.number().int(),
  /** Refused by validation: never sent, free. */
  invalid: z.number().int(),
  /** Items whose earlier call has an unknown outcome: they would answer 409 unless refreshed. */
  unknownOutcome: z.number().int(),
  /** The most the batch can cost (every AI function requested completing). */
  estimatedCostUSD: z.number(),
  /** What is left of today's budget. */
  budgetRemainingUSD: z.number(),
  sandbox: z.boolean(),
  /** Per-item verdict, in input order. */
  verdicts: z.array(z.enum(["cached", "create", "invalid", "unknown-outcome", "duplicate"])),
});
export type DryRunAnswer = z.infer<typeof DryRunAnswer>;

const Period = z.object({
  reports: z.number().int(),
  aiFunctions: z.number().int(),
  /** Billed by the service, by the relay's ledger. */
  costUSD: z.number(),
  /** Calls whose outcome the relay cannot know (it died or timed out after sending): at most this much more. */
  unknownUSD: z.number(),
  /** Calls in flight now, at their most. */
  pendingUSD: z.number(),
  calls: z.number().int(),
  cacheHits: z.number().int().optional(),
});

const DailyBudget = z.object({
  dailyUSD: z.number(),
  /** Today's budget less what is billed, unknown and in flight. */
  remainingTodayUSD: z.number(),
});

/** One caller's (relay token's) share of the spend: named by its label and non-secret id, never the token. */
export const CallerSpend = z.object({
  /** The token's id (an HMAC of it keyed by the relay's own secret, 12 hex digits); null for calls booked to no token (made before the relay recorded callers). */
  id: z.string().nullable(),
  /** The label the operator gave the token (RELAY_TOKENS `label:token`). */
  label: z.string().optional(),
  /** True on the line of the token that asked. */
  you: z.boolean(),
  today: Period,
  month: Period,
  /** The token's own daily budget (RELAY_TOKEN_BUDGETS_USD_PER_DAY), when it has one. */
  budget: DailyBudget.optional(),
});
export type CallerSpend = z.infer<typeof CallerSpend>;

export const UsageAnswer = z.object({
  mode: z.enum(["sandbox", "live"]),
  today: Period,
  month: Period,
  budget: DailyBudget,
  /** Today's and this month's spend by caller; absent from relays older than this field. */
  callers: z.array(CallerSpend).optional(),
});
export type UsageAnswer = z.infer<typeof UsageAnswer>;

export const HealthAnswer = z.object({
  ok: z.boolean(),
  mode: z.enum(["sandbox", "live"]),
  version: z.string(),
});
export type HealthAnswer = z.infer<typeof HealthAnswer>;
