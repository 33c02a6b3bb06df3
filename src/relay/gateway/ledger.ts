import { Operation } from "../../contract";
import type { Caller } from "../callers/caller";
import { RelayError } from "../relay-errors";
import { RelayMetrics } from "../ops/metrics";
import { HeldBack, Outcome, heldBack } from "../upstream/outcome";
import { CallEnd, LastCall, LedgerStore } from "../store/store";
import { Budget } from "./budget";
import { unusableRepeat } from "../upstream/unusable-answer";
import { StoreCall } from "./store-call";

/**
 * The ledger: a row for every call, written before it is sent (with the budget check in the same
 * step) and settled with how it ended. It also says when a request must not be sent again on the
 * relay's own: its last call may have billed without the relay knowing.
 */
export class Ledger {
  readonly #store: LedgerStore;
  readonly #metrics: RelayMetrics;
  readonly #owner: string;
  readonly #budget: Budget;
  readonly #storeCall: StoreCall;
  /** Ends not yet written, by ledger row id (see flush). */
  readonly #unrecorded = new Map<string, CallEnd>();

  constructor(o: { ledger: LedgerStore; metrics: RelayMetrics; owner: string; budget: Budget; storeCall: StoreCall }) {
    this.#store = o.ledger;
    this.#metrics = o.metrics;
    this.#owner = o.owner;
    this.#budget = o.budget;
    this.#storeCall = o.storeCall;
  }

  lastCall(key: string): Promise<LastCall | undefined> {
    return this.#storeCall(() => this.#store.lastCall(key));
  }

  /**
   * Refuses to send a request its last call holds back (holdsBack): one that may have billed
   * without the relay knowing answers STR_OUTCOME_UNKNOWN; one billed with an unusable answer
   * answers that outcome again (STR_UPSTREAM_UNUSABLE, nothing billed now). Returns the last call,
   * for the caller to look at further.
   */
  async refuseUnknownOutcome(key: string, underLock = false): Promise<LastCall | undefined> {
    const last = await this.lastCall(key);
    const reason = holdsBack(last, underLock);
    if (reason === "unusable") throw unusableRepeat(last?.errorCode);
    if (reason) {
      throw new RelayError(
        "STR_OUTCOME_UNKNOWN",
        "An earlier call for this request was sent but its outcome is unknown (it may have been billed). Refresh explicitly to send it again.",
      );
    }
    return last;
  }

  /**
   * Writes the call's row before it is sent, booked to its caller, if today's budget allows its
   * most, and the caller's own budget does too; its row id.
   */
  async reserve(op: Operation, key: string, maxCents: number, caller?: Caller): Promise<string> {
    const now = Date.now();
    const reservation = await this.#storeCall(() =>
      this.#store.reserveCall(
        {
          op,
          cacheKey: key,
          maxCents,
          owner: this.#owner,
          startedAt: now,
          callerId: caller?.id,
          callerLabel: caller?.label,
        },
        this.#budget.dailyCents,
        this.#budget.dayStart(now),
        this.#budget.callerDailyCents(caller),
      ),
    );
    if (reservation.ok) return reservation.id;
    throw reservation.limit === "caller" && caller
      ? this.#budget.callerExceeded(caller, reservation.committedCents, maxCents)
      : this.#budget.exceeded(reservation.committedCents, maxCents);
  }

  /** Settles a call's row with how it ended. */
  async record(id: string, outcome: Outcome): Promise<void> {
    this.#metrics.outcomes.inc({ state: outcome.state });
    if (outcome.state === "billed") this.#metrics.billedCents.inc(outcome.charge.cents);
    const unknown = outcome.state === "unknown";
    const end: CallEnd = {
      state: outcome.state,
      status: outcome.status,
      // An unknown call's charge is only its most; the ledger holds that as max_cents, not as billed.
      cents: unknown ? 0 : outcome.charge.cents,
      reports: unknown ? 0 : outcome.charge.reports,
      aiFunctions: unknown ? 0 : outcome.charge.aiFunctions,
      analysisId: "envelope" in outcome ? (outcome.envelope.data?._id ?? undefined) : undefined,
      errorCode: "error" in outcome ? (outcome.ledgerNote ?? outcome.error.code) : undefined,
      finishedAt: Date.now(),
    };
    try {
      await this.#store.finishCall(id, end);
    } catch {
      // Kept for the next heartbeat to write (flush): meanwhile the row stays pending and holds its
      // most against the budget, never under-counted.
      this.#unrecorded.set(id, end);
    }
  }

  /**
   * Writes the ends of calls the ledger could not take when they finished (its store was away).
   * Run on every heartbeat. Lost if this replica dies first: the rows then become unknown, as any
   * dead replica's pending calls do.
   */
  async flush(): Promise<void> {
    for (const [id, end] of [...this.#unrecorded]) {
      try {
        await this.#store.finishCall(id, end);
        this.#unrecorded.delete(id);
      } catch {
        return;
      }
    }
  }
}

/**
 * Why a request is not sent again on the relay's own, after its last call (outcome.ts heldBack).
 * Under the request's lock a pending last call counts as unknown: no live replica can be sending
 * it (the lock says so), so its sender died or lost the lock mid-call, and its outcome is unknown
 * even before the heartbeats say so.
 */
export function holdsBack(last: LastCall | undefined, underLock = false): HeldBack | undefined {
  if (underLock && last?.state === "pending") return "unknown-outcome";
  return heldBack(last);
}
