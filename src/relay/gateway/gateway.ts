import { AnyRequest, Operation, RelayAnswer, describeIssues, maxCharge, validateRequest } from "../../contract";
import { RelayError } from "../relay-errors";
import { DEFAULT_RETRY_POLICY } from "../upstream/retry-rule";
import { markStale } from "./staleness";
import { AnswerCache, answers, cacheKeyOf, limitComparables } from "./answer-cache";
import { Budget } from "./budget";
import { localDayStart } from "./calendar";
import { Ledger } from "./ledger";
import { planRequest } from "./dry-run";
import { holdLock } from "./request-lock";
import { sendAndRecord } from "./send-and-record";
import type { AnalyzeOptions, GatewayOptions, Plan } from "./options";
import { Sender } from "./sender";
import { Flight, SingleFlight, unsharedFlight } from "./single-flight";
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
      ledger: store.ledger,
      dailyCents: options.budgetCents,
      dayStart: options.dayStart ?? localDayStart,
      storeCall: this.#storeCall,
      callers: options.callers,
    });
    this.#ledger = new Ledger({
      ledger: store.ledger,
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
    return markStale(answer, this.#o.staleAfterMs, Date.now(), () => maxCharge(op, request));
  }

  /** What `analyze` would do with this request now, spending nothing (the dry run: dry-run.ts). */
  plan(op: Operation, body: unknown, options: { refresh?: boolean; freshSince?: number } = {}): Promise<Plan> {
    return planRequest(
      { validate: (o, b) => this.validate(o, b), cache: this.#cache, ledger: this.#ledger },
      op,
      body,
      options,
    );
  }

  /** An analysis this relay stored, by id, as the relay's answer (GET /v1/analyses/:id): free. */
  async stored(id: string): Promise<RelayAnswer | undefined> {
    const entry = await this.#cache.stored(id);
    return entry ? this.#cache.answerOf(entry, { cached: true, costCents: 0 }) : undefined;
  }

  async #analyze(op: Operation, request: AnyRequest, options: AnalyzeOptions): Promise<RelayAnswer> {
    const askedAt = Date.now();
    const key = cacheKeyOf(op, request);
    const refresh = options.refresh === true;
    const freshSince = refresh ? options.freshSince : undefined;
    // A refresh running here will replace the cached answer: wait for it rather than read the older one.
    if (!this.#flights.refreshing(key) && (!refresh || freshSince !== undefined || options.call !== undefined)) {
      const hit = await this.#cache.read(key, { comparables: options.maxComparables !== 0 });
      if (hit && answers(hit, { refresh, freshSince, call: options.call })) return this.#cache.hit(hit, options.call);
    }
    const ask = {
      refresh,
      freshSince,
      joinOnly: options.joinOnly === true,
      call: options.call,
      caller: options.caller,
      priority: options.priority,
      onWaiting: options.onWaiting,
    };
    const send = (flight: Flight) => this.#send(op, request, key, ask, flight);
    // joinOnly joins a call running here but starts none another caller could join: it never sends,
    // and a plain request beside it must be bought, not told STR_NOT_SENT.
    if (ask.joinOnly && !this.#flights.has(key)) return send(unsharedFlight(options.signal));
    if (this.#flights.has(key)) options.onWaiting?.();
    const { answer, joined, callId } = await this.#flights.run(key, send, {
      signal: options.signal,
      refresh,
      holder: options.caller?.id,
      onJoin: options.onJoin,
      call: options.call,
      newCallId: options.newCallId,
    });
    // A refresh that joined a call already answered when it was asked (the call was finishing: its
    // answer being kept, its ledger row written) asks again, now that the call is over. Not one asking
    // for that call by name, nor one asking only for answers made or being made (joinOnly).
    const stale = refresh && joined && !ask.joinOnly && options.call !== callId;
    if (stale && Date.parse(answer.relay.fetchedAt) < (freshSince ?? askedAt))
      return this.#analyze(op, request, options);
    // The cost belongs to the caller that started the call, or asked again for it by name (its
    // pending line gave the call); others who joined it paid nothing.
    return joined && options.call !== callId
      ? { ...answer, relay: { ...answer.relay, costUSD: 0, shared: true } }
      : answer;
  }

  /** Leaves the places `callerId`'s pending items keep in these calls (POST /v1/batch/cancel). */
  cancel(callIds: readonly string[], callerId: string | undefined): number {
    return this.#flights.cancel(callIds, callerId);
  }

  async #send(
    op: Operation,
    request: AnyRequest,
    key: string,
    ask: Pick<AnalyzeOptions, "freshSince" | "call" | "caller" | "priority" | "onWaiting"> & {
      refresh: boolean;
      joinOnly: boolean;
    },
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
    if (!ask.joinOnly) await this.budget.check(most.cents, ask.caller);
    // The answer there was before waiting: a refresh finding another one after is another sender's
    // refresh, made meanwhile (told apart by its call, not by clocks that differ across replicas).
    const before = ask.refresh ? (await this.#cache.read(key, { comparables: false }))?.callId : undefined;
    const lock = await holdLock(this.#o.store.locks, this.#storeCall, key, {
      owner: this.#o.owner,
      ttlMs: this.#o.callTimeoutMs + 60_000,
      signal: flight.signal,
      onWaiting: ask.onWaiting,
    });
    try {
      // Another replica may have finished this very request meanwhile.
      const hit = await this.#cache.read(key);
      const since = { refresh: ask.refresh, freshSince, call: ask.call };
      if (hit && (answers(hit, since) || (ask.refresh && hit.callId !== undefined && hit.callId !== before)))
        return this.#cache.hit(hit, ask.call);
      if (guarded) {
        // An answer the cache lost is given back from the analysis the ledger names, not bought again.
        const kept = await this.#cache.fromLedger(key, await this.#ledger.refuseUnknownOutcome(key, true));
        if (kept && (!ask.refresh || kept.fetchedAt >= freshSince)) {
          await this.#cache.restore(kept);
          return this.#cache.hit(kept);
        }
      }
      if (ask.joinOnly)
        throw new RelayError(
          "STR_NOT_SENT",
          "Not sent: only an answer already made or being made was asked for, and there is none. Nothing was billed.",
          { billing: "not-billed" },
        );
      // Only a call that will be sent waits for a send slot: under the lock, with the cache and the
      // ledger checked, so a replica that lost the race for this request spends none.
      ask.onWaiting?.();
      const stopRenewing = lock.keepAlive();
      const slot = await this.#sender
        .slot(flight.signal, { caller: ask.caller?.id, priority: ask.priority })
        .finally(stopRenewing);
      // The fence: every asker may have left as the slot was granted (a pacer grants on its own
      // timer), or this replica may have lost the lock (paused past its lease) and another sent.
      const fenced = !flight.signal.aborted && (await lock.stillHeld());
      const stored = fenced ? await this.#cache.read(key) : undefined;
      if (!fenced || (stored && (!ask.refresh || stored.callId !== before))) {
        slot.release();
        if (flight.signal.aborted) throw flight.signal.reason;
        return stored
          ? this.#cache.hit(stored, ask.call)
          : this.#send(op, request, key, { ...ask, freshSince }, flight);
      }
      const parts = { ledger: this.#ledger, sender: this.#sender, cache: this.#cache, events: this.#o.events };
      return await sendAndRecord(
        parts,
        { op, request, key, most, caller: ask.caller, redact: this.#o.redact },
        slot,
        flight,
      );
    } finally {
      await this.#o.store.locks.release(key, this.#o.owner).catch(() => undefined);
    }
  }
}
