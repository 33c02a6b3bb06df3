import { Analysis, NormalizedEnvelope, Operation, Warning } from "../../contract";
import type { JobStore } from "../batch/jobs/job-store";

/*
 * What the relay keeps: cached answers, analyses by id, the ledger of every call sent to the
 * service, which replicas live and which requests they are sending, and jobs. One interface of
 * parts (RelayStore), one class per backend: SqliteStore (one relay, the default) and SharedStore
 * (Redis + Postgres, for replicas). Replicas hold nothing else, so any replica can answer any request.
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
  /** The budget day the call counts against (reserveCall's dayStart); none in Postgres rows written before it was kept. */
  day: number | undefined;
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

/** Cached answers by request key (sha256 of the canonical request). */
export interface CacheStore {
  get(key: string, options?: CacheReadOptions): Promise<CachedAnswer | undefined>;
  put(entry: CachedAnswer): Promise<void>;
}

/** Analyses by id (GET /v1/analyses/:id). An analysis keeps the strategy it was first stored with. */
export interface AnalysisStore {
  get(id: string): Promise<StoredAnalysis | undefined>;
  put(analysis: StoredAnalysis): Promise<void>;
}

/** The ledger: a row for every call sent to the service, and the spend it commits (committed-spend.ts). */
export interface LedgerStore {
  /**
   * Writes a pending ledger row if the day's committed spend since `dayStart` plus the call's most
   * stays within `budgetCents` and, with `callerBudgetCents`, the caller's own committed spend that
   * day plus its most stays within that — atomically, so concurrent calls (and replicas) cannot
   * pass either budget together.
   */
  reserveCall(call: CallStart, budgetCents: number, dayStart: number, callerBudgetCents?: number): Promise<Reservation>;
  /**
   * The spend committed since `dayStart`, the relay's or, with `callerId`, that caller's (token
   * id): what the budgets are checked against before a call waits for its send slot; cheap, as it
   * runs once a call.
   */
  committedCents(dayStart: number, callerId?: string): Promise<number>;
  /**
   * Writes how the call ended, as its owner (the only one that holds `id`) saw it. Applies to a
   * call still open (pending, or swept to unknown while its owner was alive but looked dead: what
   * the owner saw is what happened, and usage and the budget follow it). A call already finished
   * stays as it is.
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
  /** Every ledger row, oldest first (for tests and audits). */
  rows(): Promise<LedgerRow[]>;
}

/** Which replicas are alive, on the store's clock (never a replica's: replicas' clocks need not agree). */
export interface LivenessStore {
  /** Says `owner` is alive; it beats every `intervalMs`, and its pending calls stay pending. */
  heartbeat(owner: string, intervalMs: number): Promise<void>;
  /**
   * Pending calls of replicas whose last heartbeat is older than `staleAfterMs` (three beats)
   * become unknown, and the request locks they held are freed. Returns how many calls. A shared
   * store lets `sweeper` judge only once its own heartbeats have come steadily for `staleAfterMs`:
   * right after the store was away for everyone, every replica's heartbeat looks stale. A call
   * swept by mistake is still settled by its owner's finishCall.
   */
  settleOrphans(sweeper: string, staleAfterMs: number): Promise<number>;
}

/** Request locks, so that replicas send a request once. */
export interface LockStore {
  /** Takes the lock on `key` for `owner` (or renews it when already its own); false if another holds it. */
  acquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<void>;
  /**
   * Resolves when the lock on `key` is released, by any replica the store hears from, or after
   * `ms` at the latest; the lock may be taken again by then. It listens from the call on, so a
   * caller asks for it before trying the lock, and misses no release in between.
   */
  released(key: string, ms: number): Promise<void>;
}

/** What the relay keeps, in parts; each backend's store builds its parts and exposes them as they are. */
export interface RelayStore {
  readonly kind: "sqlite" | "shared";
  readonly cache: CacheStore;
  readonly analyses: AnalysisStore;
  readonly ledger: LedgerStore;
  readonly liveness: LivenessStore;
  readonly locks: LockStore;
  /** Jobs (POST /v1/jobs): their items and results, kept like the ledger so any replica, or the next start, resumes them. */
  readonly jobs: JobStore;
  /**
   * A secret kept in the store under `name`: the first relay to ask keeps its `candidate`, and every
   * relay sharing the store gets that one (caller ids are keyed by it: caller.ts).
   */
  keptSecret(name: string, candidate: string): Promise<string>;
  /** Resolves when every part of the store answers; rejects, naming the part, when one does not (/healthz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
