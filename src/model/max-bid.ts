import { Analysis, PercentileKey } from "../contract/analysis";
import { mortgageStrategyModel } from "./finance";
import { INVESTOR_METRICS, WhatIfInputs, mortgageInputs, whatIfKind } from "./whatif";

/*
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
 * meets the target changes once at most: a price that meets it and one that does not are found from
 * the analysis's own price, and the boundary between them is bisected to the cent. When the search
 * reaches an end of the range, the ends say why there is no answer: no price meets the target, every
 * price does, or the metric rises with the price (operating income below zero).
 */

/** What the metrics are read from: an analysis, or the model's fields at another price. */
type BidFields = Pick<
  Analysis,
  | "yearOneCashOnCashPercentage"
  | "yearOneCapRatePercentage"
  | "yearOneCashFlowUSD"
  | "yearOneOperatingIncomeUSD"
  | "yearOneMorgageAndTaxesUSD"
>;

/** Each metric as STR.WHATIF reports it (DSCR as the catalogue derives it). */
export const BID_METRICS = {
  yearOneCashOnCashPercentage: {
    label: "cash-on-cash return",
    unit: "percent",
    of: (a: BidFields) => num(a.yearOneCashOnCashPercentage),
  },
  dscr: { label: "DSCR", unit: "ratio", of: INVESTOR_METRICS.dscr },
  yearOneCapRatePercentage: {
    label: "cap rate",
    unit: "percent",
    of: (a: BidFields) => num(a.yearOneCapRatePercentage),
  },
  yearOneCashFlowUSD: { label: "year-one cash flow", unit: "usd", of: (a: BidFields) => num(a.yearOneCashFlowUSD) },
} as const satisfies Record<
  string,
  { label: string; unit: "percent" | "ratio" | "usd"; of: (a: BidFields) => number | undefined }
>;

export type BidMetric = keyof typeof BID_METRICS;

/** The names people write for each metric, simplified (lower case, letters and digits only). */
const BID_METRIC_NAMES: Readonly<Record<BidMetric, readonly string[]>> = {
  yearOneCashOnCashPercentage: [
    "cashoncash",
    "coc",
    "cashoncashreturn",
    "yearonecashoncash",
    "yearonecashoncashpercentage",
  ],
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
  if (whatIfKind(a) !== "mortgage")
    return {
      ok: false,
      reason: "no-price",
      message: "the analysis is not a purchase (buy or owned): it has no price to bid",
    };
  const metric = BID_METRICS[ask.metric];
  const financing: WhatIfInputs = {
    scenario: ask.scenario,
    downPaymentPercentage: ask.downPaymentPercentage,
    interestRatePercentage: ask.interestRatePercentage,
    mortgageLength: ask.mortgageLength,
  };
  const model = mortgageInputs(a, financing);
  if (!model.ok) return { ok: false, reason: "no-price", message: model.message };
  // STR.WHATIF at another price is this model with that price (whatif.ts), without copying the
  // whole analysis each time. Whole cents, so that bisection ends on the cent.
  const at = (cents: number): number | undefined =>
    metric.of(mortgageStrategyModel({ ...model.inputs, purchasePriceUSD: cents / 100 }));
  const meets = (cents: number) => {
    const value = at(cents);
    return value !== undefined && value >= ask.target;
  };
  const wanted = `${metric.label} ≥ ${shown(ask.target, metric.unit)}`;
  const found = bracket(meets, Math.round(model.inputs.purchasePriceUSD * 100));
  if (found === "every")
    return unreachable(`every price up to ${usd(BID_PRICE_RANGE.max)} gives ${wanted}: there is no highest price`);
  if (found === "rises")
    return unreachable(
      `the ${metric.label} rises with the price here (operating income is below zero), so there is no highest price with ${wanted}`,
    );
  if (found === "none")
    return unreachable(
      `no price from ${usd(BID_PRICE_RANGE.min)} gives ${wanted}: at ${usd(BID_PRICE_RANGE.min)} it is ${describe(at(BID_PRICE_RANGE.min * 100), metric.unit)}`,
    );
  let { lo, hi } = found;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (meets(mid)) lo = mid;
    else hi = mid;
  }
  return { ok: true, priceUSD: lo / 100, value: at(lo) as number };
}

/**
 * Prices in cents, `lo` meeting the target and `hi` not, found from the analysis's own price by
 * doubling or halving (the answer is usually within a factor of two of it); or why there are none.
 */
function bracket(
  meets: (cents: number) => boolean,
  start: number,
): { lo: number; hi: number } | "none" | "every" | "rises" {
  const min = BID_PRICE_RANGE.min * 100;
  const max = BID_PRICE_RANGE.max * 100;
  let probe = Math.min(Math.max(start, min), max);
  if (meets(probe)) {
    let lo = probe;
    for (probe = Math.min(lo * 2, max); meets(probe); probe = Math.min(lo * 2, max)) {
      if (probe === max) return meets(min) ? "every" : "rises";
      lo = probe;
    }
    return { lo, hi: probe };
  }
  let hi = probe;
  for (probe = Math.max(Math.floor(hi / 2), min); !meets(probe); probe = Math.max(Math.floor(hi / 2), min)) {
    if (probe === min) return meets(max) ? "rises" : "none";
    hi = probe;
  }
  return { lo: probe, hi };
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
