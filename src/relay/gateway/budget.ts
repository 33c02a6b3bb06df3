import { centsToUSD } from "../../contract";
import type { Caller, Callers } from "../callers/caller";
import { RelayConfig } from "../config";
import { RelayError } from "../relay-errors";
import { LedgerStore } from "../store/store";
import { StoreCall } from "./store-call";

/*
 * The daily budget: what may be committed today (since local midnight, as store/committed-spend.ts
 * defines it: billed, plus unknown and in-flight calls at their most) and the check before a call
 * is queued; and beside it a token's own daily budget (RELAY_TOKEN_BUDGETS_USD_PER_DAY), counted
 * the same way over that token's calls. The ledger's `reserveCall` repeats both checks atomically
 * with the ledger row; this is the one place the figures are read.
 */

export function budgetCentsOf(config: Pick<RelayConfig, "budgetUSDPerDay">): number {
  return Math.round(config.budgetUSDPerDay * 100);
}

export class Budget {
  readonly dailyCents: number;
  readonly #ledger: LedgerStore;
  readonly #dayStart: (now: number) => number;
  readonly #storeCall: StoreCall;
  readonly #callers: Callers | undefined;

  constructor(o: {
    ledger: LedgerStore;
    dailyCents: number;
    dayStart: (now: number) => number;
    storeCall: StoreCall;
    callers?: Callers | undefined;
  }) {
    this.dailyCents = o.dailyCents;
    this.#ledger = o.ledger;
    this.#dayStart = o.dayStart;
    this.#storeCall = o.storeCall;
    this.#callers = o.callers;
  }

  /** The caller's own daily budget in cents; undefined when only the relay's applies. */
  callerDailyCents(caller: Caller | undefined): number | undefined {
    return caller && this.#callers?.budgetCentsOf(caller.id);
  }

  dayStart(now: number = Date.now()): number {
    return this.#dayStart(now);
  }

  /** What is left today, never below 0: of the relay's budget, and of the caller's own when it has one. */
  async remainingCents(now: number = Date.now(), caller?: Caller): Promise<number> {
    const committed = await this.#storeCall(() => this.#ledger.committedCents(this.#dayStart(now)));
    const own = await this.callerRemainingCents(caller, now);
    return Math.min(Math.max(0, this.dailyCents - committed), own ?? Infinity);
  }

  /** What is left today of the caller's own budget; undefined when it has none. */
  async callerRemainingCents(caller: Caller | undefined, now: number = Date.now()): Promise<number | undefined> {
    const budget = this.callerDailyCents(caller);
    if (caller === undefined || budget === undefined) return undefined;
    const committed = await this.#storeCall(() => this.#ledger.committedCents(this.#dayStart(now), caller.id));
    return Math.max(0, budget - committed);
  }

  /** Refuses a call that could pass today's budget at its most (`cents`), or the caller's own, before it waits for anything. */
  async check(cents: number, caller?: Caller): Promise<void> {
    const day = this.#dayStart(Date.now());
    const committed = await this.#storeCall(() => this.#ledger.committedCents(day));
    if (committed + cents > this.dailyCents) throw this.exceeded(committed, cents);
    const own = this.callerDailyCents(caller);
    if (caller === undefined || own === undefined) return;
    const spent = await this.#storeCall(() => this.#ledger.committedCents(day, caller.id));
    if (spent + cents > own) throw this.callerExceeded(caller, spent, cents);
  }

  exceeded(committedCents: number, cents: number): RelayError {
    const left = Math.max(0, this.dailyCents - committedCents);
    return new RelayError(
      "STR_BUDGET_EXCEEDED",
      `Today's budget of ${usd(this.dailyCents)} would be passed: ${usd(left)} is left and this call can cost up to ${usd(cents)}. Nothing was sent. Raise RELAY_BUDGET_USD_PER_DAY or wait until tomorrow.`,
    );
  }

  /** The caller's own budget refused the call; it names the token by label (or id), never the token. */
  callerExceeded(caller: Caller, committedCents: number, cents: number): RelayError {
    const budget = this.callerDailyCents(caller) ?? 0;
    const left = Math.max(0, budget - committedCents);
    const who = caller.label ?? caller.id;
    return new RelayError(
      "STR_CALLER_BUDGET_EXCEEDED",
      `This token's (${who}) own budget of ${usd(budget)} for today would be passed: ${usd(left)} of it is left and this call can cost up to ${usd(cents)}. Nothing was sent. Ask the relay's operator to raise ${who} in RELAY_TOKEN_BUDGETS_USD_PER_DAY, or wait until tomorrow.`,
    );
  }
}

function usd(cents: number): string {
  return `${centsToUSD(cents).toFixed(2)} USD`;
}
