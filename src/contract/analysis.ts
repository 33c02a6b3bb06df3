import { z } from "zod";

/** Comparables per analysis, at most (spec: "Every estimate is derived from at most 50 comparable active listings"). */
export const MAX_COMPARABLES = 50;

/**
 * The service's answers, parsed tolerantly.
 *
 * The spec leaves much "not shown" and integrators report drift (docs/service/observed-behaviour.md): missing
 * percentile objects, percent-or-fraction occupancy, older comparable field names, extra fields.
 * So every object here is loose (unknown fields are kept and passed on), every known field is
 * optional, and a field of the wrong type is dropped to `undefined` instead of failing the parse:
 * a change of shape upstream must never turn into an error for the user. `normalize.ts` then
 * repairs what can be repaired.
 */

/** A number, or a numeric string (some APIs quote numbers); anything else reads as absent. */
export const LooseNumber = z
  .preprocess(
    (v) => (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v),
    z.number(),
  )
  .optional()
  .catch(undefined);

export const LooseString = z
  .preprocess((v) => (typeof v === "number" ? String(v) : v), z.string())
  .optional()
  .catch(undefined);

/** Percentiles of revenue (USD a year), ADR (USD a night) or occupancy (fraction of 1). */
export const Percentiles = z.looseObject({
  p25: LooseNumber,
  p50: LooseNumber,
  p75: LooseNumber,
  p90: LooseNumber,
  avg: LooseNumber,
});
export type Percentiles = z.infer<typeof Percentiles>;
export const PERCENTILE_KEYS = ["p25", "p50", "p75", "p90", "avg"] as const;
export type PercentileKey = (typeof PERCENTILE_KEYS)[number];

/** One entry of `quartiles`; occupancy_rate is a percent here (0–100). */
export const Quartile = z.looseObject({
  average_daily_rate: LooseNumber,
  occupancy_rate: LooseNumber,
  revenue: LooseNumber,
});
export type Quartile = z.infer<typeof Quartile>;

/** `average` is not in the spec; integrators have seen it beside the four percentiles. */
export const Quartiles = z.looseObject({
  "25th_percentile": Quartile.optional().catch(undefined),
  "50th_percentile": Quartile.optional().catch(undefined),
  "75th_percentile": Quartile.optional().catch(undefined),
  "90th_percentile": Quartile.optional().catch(undefined),
  average: Quartile.optional().catch(undefined),
});
export type Quartiles = z.infer<typeof Quartiles>;
export const QUARTILE_KEYS = {
  p25: "25th_percentile",
  p50: "50th_percentile",
  p75: "75th_percentile",
  p90: "90th_percentile",
  avg: "average",
} as const satisfies Record<PercentileKey, keyof Quartiles>;

export const GeoPoint = z.looseObject({
  type: LooseString,
  /** Longitude first, then latitude (GeoJSON order). */
  coordinates: z.array(z.number()).optional().catch(undefined),
});

/** A comparable listing, with the spec's field names (older names are mapped in normalize.ts). */
export const Comparable = z.looseObject({
  platformId: LooseString,
  name: LooseString,
  listingUrl: LooseString,
  bedrooms: LooseNumber,
  bathrooms: LooseNumber,
  accommodates: LooseNumber,
  annualRevenueUSD: LooseNumber,
  occupancyRatePercentage: LooseNumber,
  averageDailyRateUSD: LooseNumber,
  distanceMiles: LooseNumber,
  photo_urls: z.array(z.string()).optional().catch(undefined),
  // Not in the spec; the live service sends them under its own names (normalize-comparable.ts).
  cleaningFeeUSD: LooseNumber,
  rating: LooseNumber,
  reviews: LooseNumber,
  superhost: z.boolean().optional().catch(undefined),
  latitude: LooseNumber,
  longitude: LooseNumber,
});
export type Comparable = z.infer<typeof Comparable>;

/**
 * One month of the seasonality profile (`monthly`), read from the live service's `revenueData`:
 * the nightly rate, occupancy as a fraction of 1 and revenue of that month.
 */
export const MonthlyFigures = z.object({
  /** As the service keyed it: "2026-01", or a month's name ("Jan") when it gave no year. */
  month: z.string(),
  ratePerNightUSD: z.number().optional(),
  occupancy: z.number().optional(),
  revenueUSD: z.number().optional(),
});
export type MonthlyFigures = z.infer<typeof MonthlyFigures>;

/**
 * The relay's mark on an analysis it normalised (`_normalized` in `data`): read as it is, never
 * normalised again, and its repairs are said wherever its figures are shown. It travels with the
 * analysis into the cache and the stored analyses, so an answer read back by id still says them.
 */
export const NormalizedMark = z.object({
  version: z.number(),
  /** One line per repair, in words a user reads beside the figures ("occupancy given in percent, read as 55 %"). */
  notes: z.array(z.string()),
});
export type NormalizedMark = z.infer<typeof NormalizedMark>;
export const NORMALIZED_MARK = "_normalized";
/** Bumped when the normaliser reads a shape differently, or names a figure differently (3: `monthly[].ratePerNightUSD`, `adrUSD` before). */
export const NORMALIZER_VERSION = 3;

/** The spec does not show a warning's shape: strings and objects are both kept as they came. */
export const Warning = z.union([z.string(), z.looseObject({})]);
export type Warning = z.infer<typeof Warning>;
/** Warnings in any shape seen: a list of texts or objects, one text, or one object. */
export const Warnings = z
  .preprocess(
    (v) => (typeof v === "string" || (typeof v === "object" && v !== null && !Array.isArray(v)) ? [v] : v),
    z.array(z.unknown()),
  )
  .transform((items) =>
    items.filter(
      (w): w is Warning =>
        (typeof w === "string" && w.trim() !== "") || (typeof w === "object" && w !== null && !Array.isArray(w)),
    ),
  )
  .optional()
  .catch(undefined);

/** Fields of `data` shared by all four strategies (spec: "Fields of data common to all four strategies"). */
const commonFields = {
  _id: LooseString,
  url: LooseString,
  currency: LooseString,
  ratePerNightUSD: LooseNumber,
  occupancyRatePercentage: LooseNumber,
  bedrooms: LooseNumber,
  bathrooms: LooseNumber,
  commonSpaces: LooseNumber,
  accomodates: LooseNumber,
  fullAddress: LooseString,
  location: GeoPoint.optional().catch(undefined),
  revenue: Percentiles.optional().catch(undefined),
  adr: Percentiles.optional().catch(undefined),
  occupancy: Percentiles.optional().catch(undefined),
  quartiles: Quartiles.optional().catch(undefined),
  comparables: z.array(z.unknown()).optional().catch(undefined),
};

/** buy and owned (spec: "Additional fields of data by strategy"); spellings as the service has them. */
export const MORTGAGE_STRATEGY_FIELDS = [
  "downPaymentPercentage",
  "mortgageLength",
  "yearsRemainingOnMortgage",
  "interestRatePercentage",
  "propertyTaxPercentage",
  "monthlyRevenueUSD",
  "monthlyExpensesUSD",
  "monthlyTaxesUSD",
  "yearOneRevenueUSD",
  "yearOneOperatingIncomeUSD",
  "yearOneMorgageAndTaxesUSD",
  "yearOneCashFlowUSD",
  "yearOneCashOnCashPercentage",
  "yearOneCapRatePercentage",
  "yearOneReturnOnInvestmentPercentage",
  "yearOnePrincipalPaydownUSD",
  "yearOneAppreciationUSD",
  "totalCashInvestment",
  "ltrPerMonthUSD",
  "ltrMonthlyExpensesPercentage",
] as const;

export const ARB_FIELDS = [
  "monthlyRentUSD",
  "yearOneRentUSD",
  "monthlyRevenueUSD",
  "monthlyExpensesUSD",
  "yearOneRevenueUSD",
  "yearOneOperatingIncomeUSD",
  "yearOneCashFlowUSD",
  "yearOneCashOnCashPercentage",
  "totalCashInvestment",
] as const;

export const COHOST_FIELDS = ["yearOneRevenueUSD", "yearOneCohostReturnUSD", "yearOneCohostCommissionUSD"] as const;

export const STRATEGY_FIELDS = {
  buy: MORTGAGE_STRATEGY_FIELDS,
  owned: MORTGAGE_STRATEGY_FIELDS,
  arb: ARB_FIELDS,
  cohost: COHOST_FIELDS,
} as const;

type NumberFieldName =
  (typeof MORTGAGE_STRATEGY_FIELDS)[number] | (typeof ARB_FIELDS)[number] | (typeof COHOST_FIELDS)[number];
const strategyFields = Object.fromEntries(
  [...new Set<NumberFieldName>([...MORTGAGE_STRATEGY_FIELDS, ...ARB_FIELDS, ...COHOST_FIELDS])].map((name) => [
    name,
    LooseNumber,
  ]),
) as Record<NumberFieldName, typeof LooseNumber>;

/** The analysis as the service sends it, every strategy's fields optional. */
export const AnalysisData = z.looseObject({ ...commonFields, ...strategyFields });
export type AnalysisData = z.infer<typeof AnalysisData>;

/** The envelope every response has (spec: "Every response has this envelope"). */
export const Envelope = z.looseObject({
  success: z.boolean().optional().catch(undefined),
  data: AnalysisData.optional().catch(undefined),
  warnings: Warnings,
  error: z.unknown().optional(),
});
export type Envelope = z.infer<typeof Envelope>;

/**
 * An analysis after normalisation: the percentile objects and the comparables are always there
 * (derived when the service left them out), whatever else the service sent is kept.
 */
/** The named fields of a loose object type, without its string index signature. */
type KnownFields<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

export type Analysis = Omit<KnownFields<AnalysisData>, "revenue" | "adr" | "occupancy" | "comparables"> &
  Record<string, unknown> & {
    revenue: Percentiles;
    adr: Percentiles;
    occupancy: Percentiles;
    comparables: Comparable[];
    /** Twelve months from `revenueData`, in calendar order; absent when the service gave none. */
    monthly?: MonthlyFigures[];
    [NORMALIZED_MARK]?: NormalizedMark;
  };

/** A normalised answer: the envelope with its analysis repaired, and notes on each repair. */
export interface NormalizedEnvelope {
  success: boolean;
  data?: Analysis;
  warnings?: Warning[];
  /** Anything else the service put in the envelope. */
  extra: Record<string, unknown>;
  /** One line per repair made to the service's answer ("occupancy was in percent; converted to fractions"). */
  notes: string[];
}

/** Plain text of a warning, whatever its shape. */
export function warningText(warning: Warning): string {
  if (typeof warning === "string") return warning;
  for (const key of ["message", "warning", "detail", "reason", "description", "error", "msg"]) {
    const value = (warning as Record<string, unknown>)[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return JSON.stringify(warning);
}
