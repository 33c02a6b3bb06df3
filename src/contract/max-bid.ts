import { Analysis, PercentileKey } from "./analysis";
import { INVESTOR_METRICS, WhatIfInputs, whatIf, whatIfKind } from "./whatif";

/**
 * The maximum bid (STR.MAXBID, later the pane's and the CLI's screening column): the highest purchase
 * price at which a metric still meets a target, computed with STR.WHATIF's model (whatif.ts) and read
 * the way STR.WHATIF reports it, so that WHATIF at the price found meets the target and a cent more
 * does not.
 *
 * Why bisection is exact here: with revenue and expenses fixed, each metric is monotonic in the price.
 * Operating income does not depend on it; mortgage payments and property tax are linear in it, so cash
 * flow falls with it; cap rate and DSCR are operating income over a multiple of it; cash-on-cash is
 * (income − k·price) ÷ (c·price + furnishing), whose slope has the sign of −(k·furnishing + c·income)
 * whatever the price. Rounding to the cent or the basis point keeps that order. So whether a price
 * meets the target changes once at most, and the two ends of the range say which way: met at the low
 * end and not at the high end is the usual case, bisected to the cent; a metric that rises with the
 * price (operating income below zero) has no highest price.
 */

export const BID_METRICS = {
  yearOneCashOnCashPercentage: { label: "cash-on-cash return", unit: "percent", of: (a: Analysis) => num(a.yearOneCashOnCashPercentage) },
  dscr: { label: "DSCR", unit: "ratio", of: INVESTOR_METRICS.dscr },
  yearOneCapRatePercentage: { label: "cap rate", unit: "percent", of: (a: Analysis) => num(a.yearOneCapRatePercentage) },
  yearOneCashFlowUSD: { label: "year-one cash flow", unit: "usd", of: (a: Analysis) => num(a.yearOneCashFlowUSD) },
} as const satisfies Record<string, { label: string; unit: "percent" | "ratio" | "usd"; of: (a: Analysis) => number | undefined }>;

export type BidMetric = keyof typeof BID_METRICS;

/** The names people write for each metric, simplified (lower case, letters and digits only). */
const BID_METRIC_NAMES: Readonly<Record<BidMetric, readonly string[]>> = {
  yearOneCashOnCashPercentage: ["cashoncash", "coc", "cashoncashreturn", "yearonecashoncash", "yearonecashoncashpercentage"],
  dscr: ["dscr", "debtservicecoverage", "debtservicecoverageratio"],
  yearOneCapRatePercentage: ["caprate", "cap", "yearonecaprate", "yearonecapratepercentage"],
  yearOneCashFlowUSD: ["cashflow", "yearonecashflow", "yearonecashflowusd"],
};

export function findBidMetric(name: string): BidMetric | undefined {
  const key = name.toLowerCase().replace(/[^a-z0-9]/g, "");
  return (Object.keys(BID_METRIC_NAMES) as BidMetric[]).find((m) => BID_METRIC_NAMES[m].includes(key));
}

/** The prices searched: STR.WHATIF's purchasePrice range, in USD. */
export const BID_PRICE_RANGE = { min: 1, max: 1_000_000_000 } as const;

export interface MaxBidInputs {
  metric: BidMetric;
  /** In the metric's unit: percent (8 for 8 %), ratio (1.25) or USD. */
  target: number;
  scenario?: PercentileKey | undefined;
  downPaymentPercentage?: number | undefined;
  interestRatePercentage?: number | undefined;
  mortgageLength?: number | undefined;
}

export type MaxBidResult =
  | { ok: true; priceUSD: number; /** The metric at that price, as STR.WHATIF reports it. */ value: number }
  /** "no-price": the analysis is not a purchase; "unreachable": no price in the range is the highest that meets the target. */
  | { ok: false; reason: "no-price" | "unreachable"; message: string };

export function maxBid(a: Analysis, ask: MaxBidInputs): MaxBidResult {
  if (whatIfKind(a) !== "mortgage") return { ok: false, reason: "no-price", message: "the analysis is not a purchase (buy or owned): it has no price to bid" };
  const metric = BID_METRICS[ask.metric];
  const financing: WhatIfInputs = { scenario: ask.scenario, downPaymentPercentage: ask.downPaymentPercentage, interestRatePercentage: ask.interestRatePercentage, mortgageLength: ask.mortgageLength };
  // Whole cents, so that bisection ends on the cent.
  const at = (cents: number): number | undefined => {
    const result = whatIf(a, { ...financing, purchasePriceUSD: cents / 100 });
    return result.ok ? metric.of(result.analysis) : undefined;
  };
  const meets = (cents: number) => {
    const value = at(cents);
    return value !== undefined && value >= ask.target;
  };
  const first = whatIf(a, { ...financing, purchasePriceUSD: BID_PRICE_RANGE.min });
  if (!first.ok) return { ok: false, reason: "no-price", message: first.message };
  let lo = BID_PRICE_RANGE.min * 100;
  let hi = BID_PRICE_RANGE.max * 100;
  const wanted = `${metric.label} ≥ ${shown(ask.target, metric.unit)}`;
  const low = meets(lo);
  const high = meets(hi);
  if (low && high) return unreachable(`every price up to ${usd(BID_PRICE_RANGE.max)} gives ${wanted}: there is no highest price`);
  if (!low && high) return unreachable(`the ${metric.label} rises with the price here (operating income is below zero), so there is no highest price with ${wanted}`);
  if (!low) return unreachable(`no price from ${usd(BID_PRICE_RANGE.min)} gives ${wanted}: at ${usd(BID_PRICE_RANGE.min)} it is ${describe(at(lo), metric.unit)}`);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (meets(mid)) lo = mid;
    else hi = mid;
  }
  return { ok: true, priceUSD: lo / 100, value: at(lo) as number };
}

function unreachable(message: string): MaxBidResult {
  return { ok: false, reason: "unreachable", message };
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function usd(value: number): string {
  return `${value.toLocaleString("en-US", { maximumFractionDigits: 2 })} USD`;
}

function shown(value: number, unit: "percent" | "ratio" | "usd"): string {
  if (unit === "percent") return `${value} %`;
  return unit === "usd" ? usd(value) : String(value);
}

function describe(value: number | undefined, unit: "percent" | "ratio" | "usd"): string {
  return value === undefined ? "not defined" : shown(value, unit);
}
