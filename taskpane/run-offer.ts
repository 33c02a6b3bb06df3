/*
 * Whether the pane offers a run it has priced, and in what words. A run whose most it can cost is
 * more than the budget left today is not offered: the relay would refuse every row past the budget,
 * so the button would promise rows it cannot deliver. The estimate says so instead, with how many
 * rows the budget does cover and what the investor can do about it.
 */
import { PRICE_CENTS, centsToUSD } from "../src/contract";
import { usd } from "./spend";

export interface PricedRun {
  /** Rows (or items) the run would send. */
  items: number;
  /** Of those, calls the service would bill. */
  toCreate: number;
  estimatedCostUSD: number;
  budgetRemainingUSD: number;
}

export type RunOffer =
  | { offered: true }
  | {
      offered: false;
      /** "This run may cost up to $5.60; $0.00 of today's budget is left." */
      reason: string;
      /** What to do: screen fewer rows, wait until tomorrow, or ask for a larger budget. */
      advice: string;
    };

/** A call's most, from the estimate itself (an enhancement's steps cost more than a report). */
function mostPerCall(run: PricedRun): number {
  return run.toCreate > 0 ? run.estimatedCostUSD / run.toCreate : centsToUSD(PRICE_CENTS.report);
}

export function runOffer(run: PricedRun, noun: { one: string; many: string } = ROWS): RunOffer {
  // Whole cents on both sides: 5.6 against 5.6000000001 is covered.
  if (Math.round(run.estimatedCostUSD * 100) <= Math.round(run.budgetRemainingUSD * 100)) return { offered: true };
  const reason = `This run may cost up to ${usd(run.estimatedCostUSD)}; ${usd(run.budgetRemainingUSD)} of today's budget is left, so it is not offered.`;
  const covered = Math.floor((run.budgetRemainingUSD + 1e-9) / mostPerCall(run));
  const later =
    "or wait until tomorrow, when the daily budget starts again, or ask whoever runs your relay to raise it.";
  const advice =
    covered > 0
      ? `The budget left covers about ${covered.toLocaleString("en-US")} new ${covered === 1 ? noun.one : noun.many}: select fewer, ${later}`
      : `Nothing new can be bought today: rows already analysed still come free from the cache. Try again tomorrow, when the daily budget starts again, or ask whoever runs your relay to raise it.`;
  return { offered: false, reason, advice };
}

const ROWS = { one: "row", many: "rows" };
