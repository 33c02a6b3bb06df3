import type { Caller, Callers } from "../callers/caller";
import type { CallEvents } from "../ops/events";
import type { RelayMetrics } from "../ops/metrics";
import type { Pacer } from "../pacing/pacer";
import type { RetryPolicy } from "../upstream/retry-rule";
import type { RelayStore } from "../store/store";
import type { Upstream } from "../upstream/upstream";
import type { Charge, Priority } from "../../contract";
import type { Membership } from "./single-flight";

/* What the gateway is built with, what a caller may ask of one analysis, and the dry run's verdict. */

export interface GatewayOptions {
  store: RelayStore;
  pacer: Pacer;
  upstream: Upstream;
  metrics: RelayMetrics;
  events: CallEvents;
  /** True on the embedded sandbox: every answer says so. */
  sandbox: boolean;
  /** This replica's id in the ledger. */
  owner: string;
  budgetCents: number;
  /** Cached answers older than this are fetched again; undefined: never. */
  cacheTtlMs: number | undefined;
  /** Answers at least this old are marked stale (staleness.ts); undefined: never. */
  staleAfterMs?: number | undefined;
  /** How long one call may take, retries included, once its send slot is granted. */
  callTimeoutMs: number;
  /** Removes secrets from text that may reach a caller or a log. */
  redact: (text: string) => string;
  retryPolicy?: RetryPolicy;
  /** Local midnight, for "today" in the budget and usage. */
  dayStart?: (now: number) => number;
  /** The configured tokens' labels and own budgets. */
  callers?: Callers | undefined;
}

export interface AnalyzeOptions {
  /** Bypass the cache: a billed refresh. */
  refresh?: boolean;
  /**
   * With `refresh`: an answer fetched at or after this time (epoch ms) is the refresh asked for — a
   * client asking again for a refresh a batch left pending — so it is answered instead of sent again.
   */
  freshSince?: number | undefined;
  /** The caller went away: drop the call if it has not been sent yet. */
  signal?: AbortSignal | undefined;
  /** Who asked (caller.ts); undefined for the relay's own work. */
  caller?: Caller | undefined;
  /** Its place in its caller's turn for a send slot (waiters.ts); bulk when undefined. */
  priority?: Priority | undefined;
  /**
   * At most this many of `data.comparables`, the first as the service listed them; 0 leaves the list
   * empty (the key stays). Only the answer is cut: the cache and the stored analysis keep them all.
   * All when undefined.
   */
  maxComparables?: number | undefined;
  /**
   * Called when the request's own checks (the cache, the budget, the ledger) are done and it starts
   * waiting: for a send slot, for the same request's call in flight, or for its lock held elsewhere.
   * A batch starts more items then (batch/stream-batch.ts). It may be called more than once; not at all for an
   * answer from the cache or a refusal.
   */
  onWaiting?: (() => void) | undefined;
  /**
   * The call an earlier answer's pending line named for this item (BatchItem.call): its answer is
   * this item's, with what it cost, wherever it is found (in flight, in the cache), and a refresh is
   * satisfied by it.
   */
  call?: string | undefined;
  /** Told of the item's place in its call (single-flight.ts): a batch leases it at its deadline. */
  onJoin?: ((membership: Membership) => void) | undefined;
  /** Never send: answer from the cache or a call in flight, else STR_NOT_SENT (BatchRequest.joinOnly). */
  joinOnly?: boolean | undefined;
  /** The name of the call, if this request starts one (single-flight.ts). */
  newCallId?: string | undefined;
}

/** What asking for a request now would do, without doing it (the dry run's verdict). */
export type Plan =
  | { verdict: "invalid" }
  | { verdict: "cached"; key: string }
  | { verdict: "unknown-outcome"; key: string }
  | { verdict: "create"; key: string; charge: Charge };
