import { centsToUSD } from "../../contract";
import { RelayConfig } from "../config";
import { RelayError } from "../errors";
import { RelayStore, UsageTotals } from "../store/store";
import { StoreCall } from "./store-call";

/**
 * The daily budget: what may be committed today (billed, plus unknown and in-flight calls at their
 * most, since local midnight) and the check before a call is queued. The store's `reserveCall`
 * repeats the check atomically with the ledger row; this is the one place the figures are read.
 */
export function budgetCentsOf(config: Pick<RelayConfig, "budgetUSDPerDay">): number {
  return Math.round(config.budgetUSDPerDay * 100);
}

/** Spend that counts against the budget: billed, and what unknown and in-flight calls may yet cost. */
export function committedCentsOf(totals: Pick<UsageTotals, "billedCents" | "unknownCents" | "pendingCents">): number {
  return totals.billedCents + totals.unknownCents + totals.pendingCents;
}

export class Budget {
  readonly dailyCents: number;
  readonly #store: RelayStore;
  readonly #dayStart: (now: number) => number;
  readonly #storeCall: StoreCall;

  constructor(o: { store: RelayStore; dailyCents: number; dayStart: (now: number) => number; storeCall: StoreCall }) {
    this.dailyCents = o.dailyCents;
    this.#store = o.store;
    this.#dayStart = o.dayStart;
    this.#storeCall = o.storeCall;
  }

  dayStart(now: number = Date.now()): number {
    return this.#dayStart(now);
  }

  /** What is left today, never below 0. */
  async remainingCents(now: number = Date.now()): Promise<number> {
    const committed = await this.#storeCall(() => this.#store.committedCents(this.#dayStart(now)));
    return Math.max(0, this.dailyCents - committed);
  }

  /** Refuses a call that could pass today's budget at its most (`cents`), before it waits for anything. */
  async check(cents: number): Promise<void> {
    const committed = await this.#storeCall(() => this.#store.committedCents(this.#dayStart(Date.now())));
    if (committed + cents > this.dailyCents) throw this.exceeded(committed, cents);
  }

  exceeded(committedCents: number, cents: number): RelayError {
    const left = Math.max(0, this.dailyCents - committedCents);
    return new RelayError(
      "STR_BUDGET_EXCEEDED",
      `Today's budget of ${usd(this.dailyCents)} would be passed: ${usd(left)} is left and this call can cost up to ${usd(cents)}. Nothing was sent. Raise RELAY_BUDGET_USD_PER_DAY or wait until tomorrow.`,
    );
  }
}

function usd(cents: number): string {
  return `${centsToUSD(cents).toFixed(2)} USD`;
}
