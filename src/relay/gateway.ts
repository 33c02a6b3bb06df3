import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  AnyRequest,
  NO_CHARGE,
  NormalizedEnvelope,
  Operation,
  RelayAnswer,
  canonicalRequest,
  centsToUSD,
  describeIssues,
  isCreate,
  maxCharge,
  validateRequest,
} from "../contract";
import { RelayError } from "./errors";
import { RelayMetrics } from "./metrics";
import { Outcome, outcomeOf, resendAllowed } from "./outcome";
import { Pacer } from "./pacer";
import { DEFAULT_RETRY_POLICY, RetryPolicy, retryVerdict } from "./retry-rule";
import { CacheReadOptions, CachedAnswer, CallEnd, LastCall, RelayStore } from "./store/store";
import { Upstream, UpstreamResult } from "./upstream";

/**
 * The path of one analysis request through the relay: validate, answer from the cache, share an
 * identical call in flight, hold the budget, wait for a send slot, send (retrying only where the
 * service cannot have billed), record the outcome in the ledger, and cache the answer.
 */
export interface GatewayOptions {
  store: RelayStore;
  pacer: Pacer;
  upstream: Upstream;
  metrics: RelayMetrics;
  /** True on the embedded sandbox: every answer says so. */
  sandbox: boolean;
  /** This replica's id in the ledger. */
  owner: string;
  budgetCents: number;
  /** Cached answers older than this are fetched again; undefined: never. */
  cacheTtlMs: number | undefined;
  /** How long one call may take, retries included, once its send slot is granted. */
  callTimeoutMs: number;
  /** Removes secrets from text that may reach a caller or a log. */
  redact: (text: string) => string;
  retryPolicy?: RetryPolicy;
  /** Local midnight, for "today" in the budget and usage. */
  dayStart?: (now: number) => number;
}

export interface AnalyzeOptions {
  /** Bypass the cache: a billed refresh. */
  refresh?: boolean;
  /** The caller went away: drop the call if it has not been sent yet. */
  signal?: AbortSignal | undefined;
  /**
   * At most this many of `data.comparables`, the first as the service listed them; 0 leaves the list
   * empty (the key stays). Only the answer is cut: the cache and the stored analysis keep them all.
   * All when undefined.
   */
  maxComparables?: number | undefined;
}

/** An identical call in flight, shared by every caller that asks for it meanwhile. */
interface Flight {
  promise: Promise<RelayAnswer>;
  controller: AbortController;
  callers: number;
  /** Once sent, a call runs to its end even if every caller left: its answer is cached, not wasted. */
  sent: boolean;
}

export function localDayStart(now: number): number {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

export function localMonthStart(now: number): number {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), 1).getTime();
}

export function cacheKeyOf(op: Operation, request: AnyRequest): string {
  return createHash("sha256").update(canonicalRequest(op, request)).digest("hex");
}

export class Gateway {
  readonly #o: GatewayOptions;
  readonly #flights = new Map<string, Flight>();
  /** Ledger ends not yet written, by ledger row id (see flushLedger). */
  readonly #unrecorded = new Map<string, CallEnd>();
  readonly #retry: RetryPolicy;
  readonly #dayStart: (now: number) => number;
  #inFlight = 0;

  constructor(options: GatewayOptions) {
    this.#o = options;
    this.#retry = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.#dayStart = options.dayStart ?? localDayStart;
  }

  /** Calls sent and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Waits for every call in flight to end and be recorded (at shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#flights.values()].map((f) => f.promise));
  }

  /** Validates a request body; throws STR_VALIDATION naming every bad field. */
  validate(op: Operation, body: unknown): AnyRequest {
    const v = validateRequest(op, body);
    if (!v.ok) throw new RelayError("STR_VALIDATION", `Invalid ${op} request: ${describeIssues(v.issues)}`, { fields: v.issues });
    return v.value;
  }

  /** One analysis: from the cache, from a shared call in flight, or sent now. */
  async analyze(op: Operation, body: unknown, options: AnalyzeOptions = {}): Promise<RelayAnswer> {
    return limitComparables(await this.#analyze(op, body, options), options.maxComparables);
  }

  async #analyze(op: Operation, body: unknown, options: AnalyzeOptions): Promise<RelayAnswer> {
    const request = this.validate(op, body);
    const key = cacheKeyOf(op, request);
    if (!options.refresh) {
      const hit = await this.cached(key, { comparables: options.maxComparables !== 0 });
      if (hit) {
        this.#o.metrics.cacheHits.inc();
        return this.#answerFromCache(hit);
      }
    }
    let flight = this.#flights.get(key);
    const joined = flight !== undefined;
    if (!flight) {
      const controller = new AbortController();
      const created: Flight = { promise: Promise.resolve() as unknown as Promise<RelayAnswer>, controller, callers: 0, sent: false };
      created.promise = this.#send(op, request, key, options.refresh === true, created).finally(() => this.#flights.delete(key));
      this.#flights.set(key, created);
      flight = created;
    } else {
      this.#o.metrics.sharedFlights.inc();
    }
    const answer = await this.#join(flight, options.signal);
    // The cost belongs to the caller that started the call; those who joined it paid nothing.
    return joined ? { ...answer, relay: { ...answer.relay, costUSD: 0, shared: true } } : answer;
  }

  /** A fresh cached answer, or undefined. */
  async cached(key: string, options?: CacheReadOptions): Promise<CachedAnswer | undefined> {
    const hit = await this.#storeCall(() => this.#o.store.getCached(key, options));
    if (!hit) return undefined;
    if (this.#o.cacheTtlMs !== undefined && Date.now() - hit.fetchedAt >= this.#o.cacheTtlMs) return undefined;
    return hit;
  }

  #join(flight: Flight, signal: AbortSignal | undefined): Promise<RelayAnswer> {
    flight.callers++;
    if (!signal) return flight.promise;
    return new Promise<RelayAnswer>((resolve, reject) => {
      const onAbort = () => {
        flight.callers--;
        if (flight.callers === 0 && !flight.sent) flight.controller.abort(signal.reason);
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (a) => {
          signal.removeEventListener("abort", onAbort);
          resolve(a);
        },
        (e: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }

  async #send(op: Operation, request: AnyRequest, key: string, refresh: boolean, flight: Flight): Promise<RelayAnswer> {
    const { store, pacer, upstream, metrics } = this.#o;
    const startedAt = Date.now();
    const signal = flight.controller.signal;
    const owner = this.#o.owner;
    const most = maxCharge(op, request);
    // Cheap refusals first, before waiting in the queue.
    if (!refresh) await this.#refuseUnknownOutcome(key);
    await this.#checkBudget(most.cents);
    await pacer.acquire(signal);
    const grantedAt = performance.now();
    await this.#lock(key, signal);
    try {
      // Another replica may have finished this very request meanwhile.
      const hit = await this.cached(key);
      if (hit && (!refresh || hit.fetchedAt >= startedAt)) {
        metrics.cacheHits.inc();
        return this.#answerFromCache(hit);
      }
      if (!refresh) {
        const last = await this.#refuseUnknownOutcome(key, true);
        const kept = await this.#answerFromLedger(key, last);
        if (kept) return kept;
      }
      // The ledger row is written before the call is sent, with the budget check in the same step.
      const reservation = await this.#storeCall(() =>
        store.reserveCall({ op, cacheKey: key, maxCents: most.cents, owner, startedAt: Date.now() }, this.#o.budgetCents, this.#dayStart(Date.now())),
      );
      if (!reservation.ok) throw this.#budgetError(reservation.committedCents, most.cents);
      flight.sent = true;

      // A slot older than its lifetime (the store was slow, or this process stalled) is traded for
      // the next one, ahead of the queue: sent late, the request would reach the service bunched
      // with those granted after it, and the service would count them over its limit.
      if (performance.now() - grantedAt > pacer.slotLifetimeMs) {
        metrics.slotsRenewed.inc();
        const slot = await this.#slotNow();
        if (slot !== true) {
          await this.#record(reservation.id, { state: "failed", status: undefined, charge: NO_CHARGE, error: slot });
          throw slot;
        }
      }
      let result: UpstreamResult;
      const deadline = Date.now() + this.#o.callTimeoutMs;
      for (let attempt = 1; ; attempt++) {
        this.#inFlight++;
        try {
          result = await upstream.call(op, request);
        } finally {
          this.#inFlight--;
        }
        metrics.upstreamCalls.inc({ status: result.kind === "answer" ? String(result.status) : result.failure.code });
        const verdict = retryVerdict(result, attempt, this.#retry);
        if (!verdict.retry || Date.now() + verdict.delayMs >= deadline) break;
        if (result.kind === "answer" && result.status === 429) pacer.throttled(Date.now() + verdict.delayMs);
        await sleep(verdict.delayMs);
        // A retry takes a new slot, ahead of the calls not sent yet (it holds a lock and a ledger
        // row meanwhile). When none can be had the last answer stands: it is one that did not bill.
        if ((await this.#slotNow()) !== true) break;
      }

      const outcome = outcomeOf(op, request, result, this.#o.redact);
      if ("error" in outcome) {
        await this.#record(reservation.id, outcome);
        throw outcome.error;
      }
      // The answer is kept before the ledger says how the call ended: a replica that dies between
      // the two leaves a cached answer and a call settled as unknown, never a finished call without
      // its answer, which the next replica to take the lock would send (and pay for) again.
      const answer = await this.#keep(op, key, outcome.envelope, outcome.charge.cents);
      await this.#record(reservation.id, outcome);
      return answer;
    } finally {
      await store.releaseLock(key, owner).catch(() => undefined);
    }
  }

  /** A send slot ahead of the queue, or the error saying why none can be had (pacer closed, its Redis away). */
  async #slotNow(): Promise<true | RelayError> {
    try {
      await this.#o.pacer.acquire(undefined, { first: true });
      return true;
    } catch (error) {
      return error instanceof RelayError ? error : new RelayError("STR_SHUTTING_DOWN", "The relay is stopping; nothing was sent.", { cause: error });
    }
  }

  /**
   * Refuses to send a request whose last call may have billed without the relay knowing. Under
   * the request's lock a pending last call counts too: no live replica can be sending it (the lock
   * says so), so its sender died or lost the lock mid-call, and its outcome is unknown even before
   * the heartbeats say so. Returns the last call, for the caller to look at further.
   */
  async #refuseUnknownOutcome(key: string, underLock = false): Promise<LastCall | undefined> {
    const last = await this.#storeCall(() => this.#o.store.lastCall(key));
    if (!resendAllowed(last?.state) || (underLock && last?.state === "pending")) {
      throw new RelayError(
        "STR_OUTCOME_UNKNOWN",
        "An earlier call for this request was sent but its outcome is unknown (it may have been billed). Refresh explicitly to send it again.",
      );
    }
    return last;
  }

  /**
   * A paid answer the cache lost — its write failed, or the cache's store was away when the answer
   * came — is given back from the analysis the ledger names, not bought again. Within the cache's
   * lifetime only: past it, fetching again is what the user configured.
   */
  async #answerFromLedger(key: string, last: LastCall | undefined): Promise<RelayAnswer | undefined> {
    if (last?.state !== "billed" || !last.analysisId || last.finishedAt === undefined) return undefined;
    if (this.#o.cacheTtlMs !== undefined && Date.now() - last.finishedAt >= this.#o.cacheTtlMs) return undefined;
    const id = last.analysisId;
    const stored = await this.#storeCall(() => this.#o.store.getAnalysis(id));
    if (!stored) return undefined;
    const entry: CachedAnswer = {
      key,
      op: last.op,
      envelope: { success: true, data: stored.data, warnings: stored.warnings, extra: {}, notes: [] },
      analysisId: id,
      fetchedAt: last.finishedAt,
      costCents: 0,
    };
    await this.#o.store.putCached(entry).catch(() => undefined);
    this.#o.metrics.cacheHits.inc();
    return this.#answerFromCache(entry);
  }

  /** Holds the request's lock, so that replicas send it once; waits while another holds it. */
  async #lock(key: string, signal: AbortSignal): Promise<void> {
    const ttl = this.#o.callTimeoutMs + 60_000;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      if (await this.#storeCall(() => this.#o.store.acquireLock(key, this.#o.owner, ttl))) return;
      if (signal.aborted) throw signal.reason;
      await sleep(wait);
    }
  }

  async #checkBudget(cents: number): Promise<void> {
    const committed = await this.#storeCall(() => this.#o.store.committedCents(this.#dayStart(Date.now())));
    if (committed + cents > this.#o.budgetCents) throw this.#budgetError(committed, cents);
  }

  #budgetError(committedCents: number, cents: number): RelayError {
    const left = Math.max(0, this.#o.budgetCents - committedCents);
    return new RelayError(
      "STR_BUDGET_EXCEEDED",
      `Today's budget of ${usd(this.#o.budgetCents)} would be passed: ${usd(left)} is left and this call can cost up to ${usd(cents)}. Nothing was sent. Raise RELAY_BUDGET_USD_PER_DAY or wait until tomorrow.`,
    );
  }

  async #record(id: string, outcome: Outcome): Promise<void> {
    const { metrics } = this.#o;
    metrics.outcomes.inc({ state: outcome.state });
    if (outcome.state === "billed") metrics.billedCents.inc({}, outcome.charge.cents);
    const analysisId = "envelope" in outcome ? (outcome.envelope.data?._id ?? undefined) : undefined;
    const end: CallEnd = {
      state: outcome.state,
      status: outcome.status,
      // An unknown call's charge is only its most; the ledger holds that as max_cents, not as billed.
      cents: outcome.state === "unknown" ? 0 : outcome.charge.cents,
      reports: outcome.state === "unknown" ? 0 : outcome.charge.reports,
      aiFunctions: outcome.state === "unknown" ? 0 : outcome.charge.aiFunctions,
      analysisId,
      errorCode: "error" in outcome ? outcome.error.code : undefined,
      finishedAt: Date.now(),
    };
    try {
      await this.#o.store.finishCall(id, end);
    } catch {
      // Kept for the next heartbeat to write (flushLedger): meanwhile the row stays pending and
      // holds its most against the budget, never under-counted.
      this.#unrecorded.set(id, end);
    }
  }

  /**
   * Writes the ends of calls the ledger could not take when they finished (its store was away).
   * Run on every heartbeat. Lost if this replica dies first: the rows then become unknown, as any
   * dead replica's pending calls do.
   */
  async flushLedger(): Promise<void> {
    for (const [id, end] of [...this.#unrecorded]) {
      try {
        await this.#o.store.finishCall(id, end);
        this.#unrecorded.delete(id);
      } catch {
        return;
      }
    }
  }

  /** Stores the analysis by id and the answer under its request, then answers. */
  async #keep(op: Operation, key: string, envelope: NormalizedEnvelope, costCents: number): Promise<RelayAnswer> {
    const fetchedAt = Date.now();
    const id = envelope.data?._id;
    const entry: CachedAnswer = {
      key,
      op,
      envelope: { success: envelope.success, data: envelope.data, shape: envelope.shape, warnings: envelope.warnings, extra: envelope.extra, notes: envelope.notes },
      analysisId: id,
      fetchedAt,
      costCents,
    };
    // Two writes, each on its own: with replicas they go to different servers (the cache to Redis,
    // the analysis to Postgres), and one being away must not cost the other. Billed and answered
    // either way; a lost cache entry is given back from the analysis (#answerFromLedger).
    if (envelope.data && id) {
      const data = envelope.data;
      try {
        const previous = isCreate(op) ? undefined : await this.#o.store.getAnalysis(id);
        await this.#o.store.putAnalysis({ id, op, strategy: isCreate(op) ? op : previous?.strategy, data, warnings: envelope.warnings ?? [], updatedAt: fetchedAt });
      } catch {
        // GET /v1/analyses/:id misses it until it is fetched again; the cache still answers.
      }
    }
    await this.#o.store.putCached(entry).catch(() => undefined);
    return this.answerOf(entry, { cached: false, costCents });
  }

  #answerFromCache(hit: CachedAnswer): RelayAnswer {
    return this.answerOf(hit, { cached: true, costCents: 0 });
  }

  /** The relay's answer: the service's envelope (with anything extra it sent) plus `relay`. */
  answerOf(entry: Pick<CachedAnswer, "envelope" | "fetchedAt" | "op">, meta: { cached: boolean; costCents: number }): RelayAnswer {
    const { envelope } = entry;
    return {
      ...envelope.extra,
      success: envelope.success,
      ...(envelope.data ? { data: envelope.data } : {}),
      ...(envelope.warnings && envelope.warnings.length > 0 ? { warnings: envelope.warnings } : {}),
      relay: {
        cached: meta.cached,
        costUSD: centsToUSD(meta.costCents),
        sandbox: this.#o.sandbox,
        fetchedAt: new Date(entry.fetchedAt).toISOString(),
        operation: entry.op,
        ...(envelope.notes.length > 0 ? { normalized: envelope.notes } : {}),
        ...(envelope.data && envelope.shape !== undefined ? { shape: envelope.shape } : {}),
      },
    };
  }

  /** Runs a store call; a store that fails answers 503 and nothing is sent. */
  async #storeCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof RelayError) throw error;
      throw new RelayError("STR_STORE_UNAVAILABLE", `The relay's store is unavailable (${this.#o.redact(error instanceof Error ? error.message : String(error))}); nothing was sent.`, { cause: error });
    }
  }
}

function usd(cents: number): string {
  return `${centsToUSD(cents).toFixed(2)} USD`;
}

/** The answer with at most `max` comparables (AnalyzeOptions.maxComparables). */
function limitComparables(answer: RelayAnswer, max: number | undefined): RelayAnswer {
  const data = answer.data;
  if (max === undefined || !data || !Array.isArray(data.comparables) || data.comparables.length <= max) return answer;
  return { ...answer, data: { ...data, comparables: data.comparables.slice(0, max) } };
}
