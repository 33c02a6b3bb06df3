import { Analysis, NormalizedEnvelope, Operation, Warning } from "../../contract";
import type { JobStore } from "../batch/jobs/job-store";

/*
 * What the relay keeps: cached answers, analyses by id, and the ledger of every call sent to the
 * service. Two implementations: SQLite (one relay, the default) and Redis + Postgres (replicas).
 * Replicas hold nothing else, so any replica can answer any request.
 */

/** How a call to the service ended, as far as billing goes. */
export type CallState =
  /** Written before the call is sent; the call is in flight. */
  | "pending"
  /** The service answered and billed (per the contract's billing rules). */
  | "billed"
  /** The service answered without billing (validation refused upstream, enhance with every AI step failed, 4xx, 429). */
  | "free"
  /** The call never reached the service whole, or the service said it failed (not billed). */
  | "failed"
  /** Sent, but the relay cannot know how it ended (it timed out or died after sending): it may have billed. */
  | "unknown";

export const CALL_STATES: readonly CallState[] = ["pending", "billed", "free", "failed", "unknown"];

/** A cached answer: the service's normalised envelope, and what it cost when fetched. */
export interface CachedAnswer {
  /** sha256 of the canonical request. */
  key: string;
  op: Operation;
  envelope: Pick<NormalizedEnvelope, "success" | "data" | "warnings" | "extra" | "notes">;
  analysisId: string | undefined;
  fetchedAt: number;
  costCents: number;
  /** The call that fetched it (single-flight.ts), so that the item its pending line named is told its cost. */
  callId?: string | undefined;
}

export interface CacheReadOptions {
  /**
   * False: the caller shows no comparables, and gets `data.comparables` empty; the stores keep them
   * apart (cached-envelope.ts) and then do not read them. @default true
   */
  comparables?: boolean;
}

export interface StoredAnalysis {
  id: string;
  /** The operation that last produced it (a strategy, or enhance). */
  op: Operation;
  /** The strategy it was created with, when known. */
  strategy: Operation | undefined;
  data: Analysis;
  warnings: Warning[];
  updatedAt: number;
}

export interface CallStart {
  op: Operation;
  cacheKey: string;
  /** The most the call can be billed: held against the budget while pending or unknown. */
  maxCents: number;
  /** The replica that sends it. */
  owner: string;
  startedAt: number;
  /** Who asked for it (caller.ts): its spend is booked to this token id. Absent for the relay's own work. */
  callerId?: string | undefined;
  /** The token's label when the call was made, kept for the audit (usage shows the configured one first). */
  callerLabel?: string | undefined;
}

export interface CallEnd {
  state: Exclude<CallState, "pending">;
  status: number | undefined;
  cents: number;
  reports: number;
  aiFunctions: number;
  analysisId: string | undefined;
  errorCode: string | undefined;
  finishedAt: number;
}

export interface LedgerRow extends CallStart {
  id: string;
  state: CallState;
  status: number | undefined;
  cents: number;
  reports: number;
  aiFunctions: number;
  analysisId: string | undefined;
  errorCode: string | undefined;
  finishedAt: number | undefined;
}

/** What the ledger says of the latest call for a request. */
export interface LastCall {
  state: CallState;
  op: Operation;
  analysisId: string | undefined;
  finishedAt: number | undefined;
  /** Its error code, with a billed unusable answer's sample after it (unusable-answer.ts). */
  errorCode?: string | undefined;
}

export interface UsageTotals {
  calls: number;
  reports: number;
  aiFunctions: number;
  billedCents: number;
  /** Max charges of calls whose outcome is unknown. */
  unknownCents: number;
  /** Max charges of calls in flight. */
  pendingCents: number;
}

/** One caller's share of a period's usage; `callerId` undefined: calls booked to no caller (made before callers were recorded). */
export interface CallerUsage extends UsageTotals {
  callerId: string | undefined;
  /** The latest label the ledger has for it. */
  callerLabel: string | undefined;
}

/**
 * A refusal says whose budget it was: the relay's (`committedCents` is the relay's day) or the
 * caller's own (`committedCents` is that caller's day).
 */
export type Reservation = { ok: true; id: string } | { ok: false; limit: "relay" | "caller"; committedCents: number };

export interface RelayStore {
  readonly kind: "sqlite" | "shared";
  /** Jobs (POST /v1/jobs): their items and results, kept like the ledger so any replica, or the next start, resumes them. */
  readonly jobs: JobStore;
  getCached(key: string, options?: CacheReadOptions): Promise<CachedAnswer | undefined>;
  putCached(entry: CachedAnswer): Promise<void>;
  getAnalysis(id: string): Promise<StoredAnalysis | undefined>;
  putAnalysis(analysis: StoredAnalysis): Promise<void>;
  /**
   * Writes a pending ledger row if today's committed spend (billed + unknown + pending, since
   * `dayStart`) plus the call's most stays within `budgetCents` and, with `callerBudgetCents`, the
   * caller's own committed spend today plus its most stays within that — atomically, so concurrent
   * calls (and replicas) cannot pass either budget together.
   */
  reserveCall(call: CallStart, budgetCents: number, dayStart: number, callerBudgetCents?: number): Promise<Reservation>;
  /**
   * The day's committed spend since `dayStart`: billed cents plus the most of every call pending or
   * unknown. What the budget is checked against before a call waits for its send slot; cheap, as it
   * runs once a call.
   */
  committedCents(dayStart: number): Promise<number>;
  /** The same for one caller (token id): what its own budget is checked against. */
  callerCommittedCents(dayStart: number, callerId: string): Promise<number>;
  /**
   * Writes how the call ended, as its owner (the only one that holds `id`) saw it. Applies to a
   * call still pending, and to one a sweep marked unknown while its owner was alive but looked dead
   * (settleOrphans): what the owner saw is what happened, and usage and the budget follow it. A
   * call already finished stays as it is.
   */
  finishCall(id: string, end: CallEnd): Promise<void>;
  /**
   * The latest call for a request: "unknown" blocks automatic resends; "billed" with its analysis
   * lets a relay whose cache lost the answer give it back rather than buy it again.
   */
  lastCall(cacheKey: string): Promise<LastCall | undefined>;
  usage(since: number): Promise<UsageTotals>;
  /** The same totals split by the caller each call was booked to. */
  usageByCaller(since: number): Promise<CallerUsage[]>;
  /**
   * Says this replica is alive, on the store's clock (never the replica's: replicas' clocks need
   * not agree); it beats every `intervalMs`, and its pending calls stay pending.
   */
  heartbeat(owner: string, intervalMs: number): Promise<void>;
  /**
   * Pending calls of replicas whose last heartbeat is older than `staleAfterMs` (three beats) on
   * the store's clock become unknown, and the request locks they held are freed. Returns how many
   * calls. A shared store lets `sweeper` judge only once its own heartbeats have come steadily for
   * `staleAfterMs`: right after the store was away for everyone, every replica's heartbeat looks
   * stale. A call swept by mistake is still settled by its owner's finishCall.
   */
  settleOrphans(sweeper: string, staleAfterMs: number): Promise<number>;
  /** Takes a lock for a request being sent, so replicas send it once. False if another holds it. */
  acquireLock(key: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLock(key: string, owner: string): Promise<void>;
  /**
   * Resolves when the lock on `key` is released, by any replica the store hears from, or after
   * `ms` at the latest; the lock may be taken again by then. It listens from the call on, so a
   * caller asks for it before trying the lock, and misses no release in between.
   */
  lockReleased(key: string, ms: number): Promise<void>;
  /** Every ledger row, oldest first (for tests and audits). */
  ledger(): Promise<LedgerRow[]>;
  /** Resolves when every part of the store answers; rejects, naming the part, when one does not (/healthz). */
  /**
   * A secret kept in the store under `name`: the first relay to ask keeps its `candidate`, and every
   * relay sharing the store gets that one (caller ids are keyed by it: caller.ts).
   */
  keptSecret(name: string, candidate: string): Promise<string>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
