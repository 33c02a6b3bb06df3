import {
  AnyRequest,
  Charge,
  NO_CHARGE,
  Operation,
  RelayAnswer,
  describeIssues,
  maxCharge,
  validateRequest,
} from "../../contract";
import { RelayError } from "../errors";
import { Outcome, outcomeOf } from "../outcome";
import { DEFAULT_RETRY_POLICY } from "../retry-rule";
import { markStale } from "../staleness";
import { AnswerCache, cacheKeyOf, limitComparables } from "./answer-cache";
import { Budget } from "./budget";
import { localDayStart } from "./calendar";
import { Ledger, mayHaveBilled } from "./ledger";
import type { AnalyzeOptions, GatewayOptions, Plan } from "./options";
import { Sender } from "./sender";
import { Flight, SingleFlight } from "./single-flight";
import { StoreCall, storeCaller } from "./store-call";

/*
 * The path of one analysis request through the relay, composed of the parts that each own one
 * step: validate, answer from the cache (answer-cache.ts), share an identical call in flight
 * (single-flight.ts), hold the budget (budget.ts), take the request's lock, write the ledger row
 * (ledger.ts), wait for a send slot and send, retrying only where the service cannot have billed
 * (sender.ts), settle the ledger and keep the answer. The dry run and the stored-analysis route go
 * through the same steps (`plan`, `stored`), so what they say cannot drift from what is done.
 */

export class Gateway {
  readonly budget: Budget;
  readonly #o: GatewayOptions;
  readonly #storeCall: StoreCall;
  readonly #cache: AnswerCache;
  readonly #ledger: Ledger;
  readonly #sender: Sender;
  readonly #flights = new SingleFlight();

  constructor(options: GatewayOptions) {
    this.#o = options;
    const { store, metrics } = options;
    this.#storeCall = storeCaller(options.redact);
    this.#cache = new AnswerCache({
      store,
      metrics,
      sandbox: options.sandbox,
      cacheTtlMs: options.cacheTtlMs,
      storeCall: this.#storeCall,
    });
    this.budget = new Budget({
      store,
      dailyCents: options.budgetCents,
      dayStart: options.dayStart ?? localDayStart,
      storeCall: this.#storeCall,
      callers: options.callers,
    });
    this.#ledger = new Ledger({
      store,
      metrics,
      owner: options.owner,
      budget: this.budget,
      storeCall: this.#storeCall,
    });
    this.#sender = new Sender({
      pacer: options.pacer,
      upstream: options.upstream,
      metrics,
      events: options.events,
      retryPolicy: options.retryPolicy ?? DEFAULT_RETRY_POLICY,
      callTimeoutMs: options.callTimeoutMs,
    });
  }

  /** Calls sent and not yet answered. */
  get inFlight(): number {
    return this.#sender.inFlight;
  }

  /** Waits for every call in flight to end and be recorded (at shutdown). */
  drain(): Promise<void> {
    return this.#flights.drain();
  }

  /** Writes ledger ends the store could not take when their calls finished (each heartbeat). */
  flushLedger(): Promise<void> {
    return this.#ledger.flush();
  }

  /** Validates a request body; throws STR_VALIDATION naming every bad field. */
  validate(op: Operation, body: unknown): AnyRequest {
    const v = validateRequest(op, body);
    if (!v.ok)
      throw new RelayError("STR_VALIDATION", `Invalid ${op} request: ${describeIssues(v.issues)}`, {
        fields: v.issues,
      });
    return v.value;
  }

  /** One analysis: from the cache, from a shared call in flight, or sent now. */
  async analyze(op: Operation, body: unknown, options: AnalyzeOptions = {}): Promise<RelayAnswer> {
    const request = this.validate(op, body);
    const answer = limitComparables(await this.#analyze(op, request, options), options.maxComparables);
    return this.#markStale(answer, () => maxCharge(op, request));
  }

  /**
   * What `analyze` would do with this request now, spending nothing: the same validation, cache,
   * ledger fallback and unknown-outcome rule, priced by the same charge the budget holds back.
   */
  async plan(op: Operation, body: unknown, options: { refresh?: boolean; freshSince?: number } = {}): Promise<Plan> {
    let request: AnyRequest;
    try {
      request = this.validate(op, body);
    } catch {
      return { verdict: "invalid" };
    }
    const key = cacheKeyOf(op, request);
    // A refresh with freshSince is answered by an answer fetched since (the pane's "older than N days").
    const since = options.refresh ? options.freshSince : undefined;
    if (!options.refresh || since !== undefined) {
      const hit = await this.#cache.read(key, { comparables: false });
      if (hit && (since === undefined || hit.fetchedAt >= since)) return { verdict: "cached", key };
      const last = await this.#ledger.lastCall(key);
      if (mayHaveBilled(last)) return { verdict: "unknown-outcome", key };
      if (since === undefined && (await this.#cache.fromLedger(key, last))) return { verdict: "cached", key };
    }
    return { verdict: "create", key, charge: maxCharge(op, request) };
  }

  /** An analysis this relay stored, by id, as the relay's answer (GET /v1/analyses/:id): free. */
  async stored(id: string): Promise<RelayAnswer | undefined> {
    const entry = await this.#cache.stored(id);
    return entry ? this.#cache.answerOf(entry, { cached: true, costCents: 0 }) : undefined;
  }

  async #analyze(op: Operation, request: AnyRequest, options: AnalyzeOptions): Promise<RelayAnswer> {
    const key = cacheKeyOf(op, request);
    const refresh = options.refresh === true;
    const freshSince = refresh ? options.freshSince : undefined;
    // A refresh running here will replace the cached answer: wait for it rather than read the older one.
    if (!this.#flights.refreshing(key) && (!refresh || freshSince !== undefined)) {
      const hit = await this.#cache.read(key, { comparables: options.maxComparables !== 0 });
      if (hit && (freshSince === undefined || hit.fetchedAt >= freshSince)) return this.#cache.hit(hit);
    }
    const ask = {
      refresh,
      freshSince,
      caller: options.caller,
      priority: options.priority,
      onWaiting: options.onWaiting,
    };
    const send = (flight: Flight) => this.#send(op, request, key, ask, flight);
    if (this.#flights.has(key)) options.onWaiting?.();
    const { answer, joined } = await this.#flights.run(key, send, { signal: options.signal, refresh });
    // The cost belongs to the caller that started the call; those who joined it paid nothing.
    return joined ? { ...answer, relay: { ...answer.relay, costUSD: 0, shared: true } } : answer;
  }

  async #send(
    op: Operation,
    request: AnyRequest,
    key: string,
    ask: Pick<AnalyzeOptions, "freshSince" | "caller" | "priority" | "onWaiting"> & { refresh: boolean },
    flight: Flight,
  ): Promise<RelayAnswer> {
    // A refresh is satisfied by an answer fetched since it was asked for: by another replica
    // meanwhile, or, asked again after a batch's deadline, by the call that request started.
    const freshSince = ask.freshSince ?? Date.now();
    // Asking again for a refresh is not a new refresh: like a plain request, it never resends a call
    // whose outcome is unknown.
    const guarded = !ask.refresh || ask.freshSince !== undefined;
    const most = maxCharge(op, request);
    // Cheap refusals first, before waiting for the lock.
    if (!ask.refresh) await this.#ledger.refuseUnknownOutcome(key);
    await this.budget.check(most.cents, ask.caller);
    await this.#lock(key, flight.signal, ask.onWaiting);
    try {
      // Another replica may have finished this very request meanwhile.
      const hit = await this.#cache.read(key);
      if (hit && (!ask.refresh || hit.fetchedAt >= freshSince)) return this.#cache.hit(hit);
      if (guarded) {
        // An answer the cache lost is given back from the analysis the ledger names, not bought again.
        const kept = await this.#cache.fromLedger(key, await this.#ledger.refuseUnknownOutcome(key, true));
        if (kept && (!ask.refresh || kept.fetchedAt >= freshSince)) {
          await this.#cache.restore(kept);
          return this.#cache.hit(kept);
        }
      }
      // Only a call that will be sent waits for a send slot: under the lock, with the cache and the
      // ledger checked, so a replica that lost the race for this request spends none.
      ask.onWaiting?.();
      const slot = await this.#sender.slot(flight.signal, { caller: ask.caller?.id, priority: ask.priority });
      // The ledger row is written before the call is sent, with the budget check in the same step.
      const row = await this.#ledger.reserve(op, key, most.cents, ask.caller).catch((error: unknown) => {
        slot.release(); // refused: the slot goes unused
        throw error;
      });
      flight.markSent();
      const result = await this.#sender.send(op, request, slot);
      // No slot could be had to send on: nothing was sent, the row settles as failed.
      const outcome: Outcome =
        result instanceof RelayError
          ? { state: "failed", status: undefined, charge: NO_CHARGE, error: result }
          : outcomeOf(op, request, result, this.#o.redact);
      this.#o.events.callEnded(op, outcome, ask.caller);
      if ("error" in outcome) {
        await this.#ledger.record(row, outcome);
        throw outcome.error;
      }
      // The answer is kept before the ledger says how the call ended: a replica that dies between
      // the two leaves a cached answer and a call settled as unknown, never a finished call without
      // its answer, which the next replica to take the lock would send (and pay for) again.
      const answer = await this.#cache.keep(op, key, outcome.envelope, outcome.charge.cents);
      await this.#ledger.record(row, outcome);
      return answer;
    } finally {
      await this.#o.store.releaseLock(key, this.#o.owner).catch(() => undefined);
    }
  }

  /**
   * Holds the request's lock, so that replicas send it once; while another holds it, tries again
   * when the store hears it released, or after a wait that grows to a second.
   */
  async #lock(key: string, signal: AbortSignal, onWaiting: (() => void) | undefined): Promise<void> {
    const ttl = this.#o.callTimeoutMs + 60_000;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      const released = this.#o.store.lockReleased(key, wait);
      if (await this.#storeCall(() => this.#o.store.acquireLock(key, this.#o.owner, ttl))) return;
      if (signal.aborted) throw signal.reason;
      onWaiting?.();
      await released;
    }
  }

  #markStale(answer: RelayAnswer, refreshCharge: () => Charge): RelayAnswer {
    const { staleAfterMs } = this.#o;
    return staleAfterMs === undefined ? answer : markStale(answer, staleAfterMs, Date.now(), refreshCharge);
  }
}
