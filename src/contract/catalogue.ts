import { Analysis, QUARTILE_KEYS } from "./analysis";
import { Strategy, STRATEGIES } from "./operations";
import { INVESTOR_METRICS } from "../model/whatif";

/*
 * Every answer field a user can put in a cell: its label, its unit and its Excel number format.
 *
 * Percents are shown the Excel way: the service's percent fields (72.5) become fractions in the
 * cell (0.725) under a % format, like the fraction fields (occupancy.p50), so every rate in a sheet
 * computes the same way (`=B2*B3`) and reads the same way (72.5 %).
 */

export type Unit =
  "usd" | "percent" | "fraction" | "ratio" | "count" | "years" | "miles" | "degrees" | "text" | "url" | "id";

export type FieldGroup =
  "Revenue" | "Nightly rate" | "Occupancy" | "Cash flow" | "Investor metrics" | "Financing" | "Property" | "Report";

export interface FieldInfo {
  /** Dot path in the analysis: `revenue.p50`, `yearOneCashFlowUSD`. */
  path: string;
  label: string;
  unit: Unit;
  group: FieldGroup;
  /** The strategies whose answers have this field. */
  strategies: readonly Strategy[];
  /** Not a row of the spilled card (added after it, so the card's rows keep their places); still in `fields` and data types. */
  offCard?: boolean;
  /** For a metric the service does not return: how it is computed from the analysis. */
  derive?: (analysis: Analysis) => number | undefined;
}

/**
 * Excel number format of each unit. Counts and years are whole numbers in `0`; a fractional one (a
 * half bath) gets `0.0` from `countFormat`: a format ending in a bare .# shows a whole 3 as "3.".
 */
export const UNIT_FORMATS: Readonly<Record<Unit, string>> = {
  usd: "$#,##0",
  percent: "0.0%",
  fraction: "0.0%",
  ratio: "0.00",
  count: "0",
  years: "0",
  miles: '0.0 "mi"',
  degrees: "0.000000",
  text: "@",
  url: "@",
  id: "@",
};

/** The format of a count or a number of years: `0` for a whole number, `0.0` for a fraction (2.5 baths). */
export function countFormat(value: number): string {
  return Number.isInteger(value) ? "0" : "0.0";
}

/** What a service value is multiplied by in a cell: percents become fractions. */
export const UNIT_SCALE: Readonly<Record<Unit, number>> = {
  usd: 1,
  percent: 0.01,
  fraction: 1,
  ratio: 1,
  count: 1,
  years: 1,
  miles: 1,
  degrees: 1,
  text: 1,
  url: 1,
  id: 1,
};

const ALL = STRATEGIES;
const MORTGAGE: readonly Strategy[] = ["buy", "owned"];
const INVESTED: readonly Strategy[] = ["buy", "owned", "arb"];

function field(
  path: string,
  label: string,
  unit: Unit,
  group: FieldGroup,
  strategies: readonly Strategy[] = ALL,
): FieldInfo {
  return { path, label, unit, group, strategies };
}

function derived(
  path: keyof typeof INVESTOR_METRICS,
  label: string,
  unit: Unit,
  strategies: readonly Strategy[],
): FieldInfo {
  return { path, label, unit, group: "Investor metrics", strategies, derive: INVESTOR_METRICS[path] };
}

/**
 * The money format of an answer's cells: `$#,##0` for USD (or an answer that names no currency),
 * else Excel's currency-code format (`[$EUR] #,##0`), so a non-USD figure never reads as dollars.
 * A known symbol ("€") reads as its code; only a three-letter code is written into a format, and a
 * currency that is neither has no symbol (never "$").
 */
export function moneyFormat(currency: unknown): string {
  const given = typeof currency === "string" ? currency.trim() : "";
  const code = CURRENCY_SYMBOLS[given] ?? given.toUpperCase();
  if (code === "" || code === "USD") return UNIT_FORMATS.usd;
  // A currency that is neither a code nor a known symbol is still not dollars: no symbol at all.
  return /^[A-Z]{3}$/.test(code) ? `[$${code}] #,##0` : "#,##0";
}

/** Symbols the live service has been seen to send instead of a code ("€"), as their codes; "$" alone reads as USD. */
const CURRENCY_SYMBOLS: Readonly<Record<string, string>> = {
  "€": "EUR",
  "£": "GBP",
  "¥": "JPY",
  "₹": "INR",
  $: "USD",
  US$: "USD",
  C$: "CAD",
  CA$: "CAD",
  A$: "AUD",
  AU$: "AUD",
  R$: "BRL",
  "₱": "PHP",
  "₩": "KRW",
  CHF: "CHF",
};

/** The `location` point's coordinate (GeoJSON: longitude first, then latitude). */
function coordinate(index: 0 | 1): (a: Analysis) => number | undefined {
  return (a) => {
    const value = a.location?.coordinates?.[index];
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  };
}

/** The service's `quartiles`, as it sends them (percentiles of revenue, nightly rate and occupancy in percent). */
function quartileFields(): FieldInfo[] {
  const metrics = [
    ["revenue", "revenue", "usd", "Revenue"],
    ["average_daily_rate", "nightly rate", "usd", "Nightly rate"],
    ["occupancy_rate", "occupancy", "percent", "Occupancy"],
  ] as const;
  return metrics.flatMap(([key, name, unit, group]) =>
    // The spec's four percentiles; an `average` key seen beside them is not one.
    PERCENTILE_LABELS.filter(([p]) => p !== "avg").map(([p, label]) =>
      field(`quartiles.${QUARTILE_KEYS[p]}.${key}`, `Quartiles: ${name}, ${label}`, unit, group),
    ),
  );
}

const PERCENTILE_LABELS = [
  ["p25", "25th percentile"],
  ["p50", "median"],
  ["p75", "75th percentile"],
  ["p90", "90th percentile"],
  ["avg", "average"],
] as const;

function percentileFields(
  metric: "revenue" | "adr" | "occupancy",
  label: string,
  unit: Unit,
  group: FieldGroup,
): FieldInfo[] {
  return PERCENTILE_LABELS.map(([key, name]) => field(`${metric}.${key}`, `${label}, ${name}`, unit, group));
}

/** In the order the card shows them. */
export const FIELD_CATALOGUE: readonly FieldInfo[] = [
  field("fullAddress", "Address", "text", "Property"),
  field("bedrooms", "Bedrooms", "count", "Property"),
  field("bathrooms", "Bathrooms", "count", "Property"),
  field("accomodates", "Guests", "count", "Property"),
  field("commonSpaces", "Common spaces", "count", "Property"),
  ...percentileFields("revenue", "Annual revenue", "usd", "Revenue"),
  field("yearOneRevenueUSD", "Year-one revenue", "usd", "Revenue"),
  field("monthlyRevenueUSD", "Monthly revenue", "usd", "Revenue", INVESTED),
  ...percentileFields("adr", "Nightly rate", "usd", "Nightly rate"),
  field("ratePerNightUSD", "Projected nightly rate", "usd", "Nightly rate"),
  ...percentileFields("occupancy", "Occupancy", "fraction", "Occupancy"),
  field("occupancyRatePercentage", "Projected occupancy", "percent", "Occupancy"),
  field("monthlyExpensesUSD", "Monthly operating expenses", "usd", "Cash flow", INVESTED),
  field("monthlyTaxesUSD", "Monthly property tax", "usd", "Cash flow", MORTGAGE),
  field("monthlyRentUSD", "Monthly rent", "usd", "Cash flow", ["arb"]),
  field("yearOneRentUSD", "Year-one rent", "usd", "Cash flow", ["arb"]),
  field("yearOneOperatingIncomeUSD", "Year-one operating income", "usd", "Cash flow", INVESTED),
  field("yearOneMorgageAndTaxesUSD", "Year-one mortgage & taxes", "usd", "Cash flow", MORTGAGE),
  field("yearOneCashFlowUSD", "Year-one cash flow", "usd", "Cash flow", INVESTED),
  field("yearOneCashOnCashPercentage", "Cash-on-cash return", "percent", "Cash flow", INVESTED),
  field("yearOneCapRatePercentage", "Cap rate", "percent", "Cash flow", MORTGAGE),
  field("yearOneReturnOnInvestmentPercentage", "Return on investment", "percent", "Cash flow", MORTGAGE),
  field("yearOnePrincipalPaydownUSD", "Year-one principal paydown", "usd", "Cash flow", MORTGAGE),
  field("yearOneAppreciationUSD", "Year-one appreciation", "usd", "Cash flow", MORTGAGE),
  field("yearOneCohostCommissionUSD", "Co-host commission", "usd", "Cash flow", ["cohost"]),
  field("yearOneCohostReturnUSD", "Host return", "usd", "Cash flow", ["cohost"]),
  derived("dscr", "DSCR", "ratio", MORTGAGE),
  derived("breakEvenOccupancy", "Break-even occupancy", "fraction", INVESTED),
  derived("grossYield", "Gross yield", "fraction", MORTGAGE),
  derived("bearCashFlowUSD", "Cash flow, bear case (p25 revenue)", "usd", INVESTED),
  derived("bullCashFlowUSD", "Cash flow, bull case (p75 revenue)", "usd", INVESTED),
  { ...derived("purchasePriceUSD", "Purchase price", "usd", MORTGAGE), group: "Financing" },
  { ...derived("loanAmountUSD", "Loan amount", "usd", MORTGAGE), group: "Financing" },
  { ...derived("monthlyMortgagePaymentUSD", "Monthly payment", "usd", MORTGAGE), group: "Financing" },
  field("totalCashInvestment", "Total cash invested", "usd", "Financing", INVESTED),
  field("downPaymentPercentage", "Down payment", "percent", "Financing", MORTGAGE),
  field("interestRatePercentage", "Interest rate", "percent", "Financing", MORTGAGE),
  field("mortgageLength", "Mortgage length", "years", "Financing", MORTGAGE),
  field("yearsRemainingOnMortgage", "Years remaining on mortgage", "years", "Financing", MORTGAGE),
  field("propertyTaxPercentage", "Property tax rate", "percent", "Financing", MORTGAGE),
  field("ltrPerMonthUSD", "Long-term rent a month", "usd", "Financing", MORTGAGE),
  field("ltrMonthlyExpensesPercentage", "Long-term rental expenses", "percent", "Financing", MORTGAGE),
  field("url", "Report", "url", "Report"),
  field("_id", "Analysis id", "id", "Report"),
  field("currency", "Currency", "text", "Report"),
  // Off the card, so its rows keep their places: asked for by name (`fields`, --fields, the pane's columns).
  { ...field("latitude", "Latitude", "degrees", "Property"), derive: coordinate(1), offCard: true },
  { ...field("longitude", "Longitude", "degrees", "Property"), derive: coordinate(0), offCard: true },
  ...quartileFields().map((f) => ({ ...f, offCard: true })),
];

/** Columns of the comparables table (STR.COMPS, the Comparables sheet). */
export const COMPARABLE_COLUMNS: readonly { key: string; label: string; unit: Unit }[] = [
  { key: "name", label: "Listing", unit: "text" },
  { key: "bedrooms", label: "Bedrooms", unit: "count" },
  { key: "bathrooms", label: "Bathrooms", unit: "count" },
  { key: "accommodates", label: "Guests", unit: "count" },
  { key: "annualRevenueUSD", label: "Annual revenue", unit: "usd" },
  { key: "averageDailyRateUSD", label: "Nightly rate", unit: "usd" },
  { key: "occupancyRatePercentage", label: "Occupancy", unit: "percent" },
  { key: "distanceMiles", label: "Distance", unit: "miles" },
  { key: "listingUrl", label: "Listing link", unit: "url" },
  /** The first photo, for Excel's IMAGE(). */
  { key: "photo_urls.0", label: "Photo", unit: "url" },
  { key: "platformId", label: "Listing id", unit: "id" },
  // Beyond the spec: what the live service gives and investors read (normalize-comparable.ts).
  { key: "cleaningFeeUSD", label: "Cleaning fee", unit: "usd" },
  { key: "rating", label: "Rating", unit: "ratio" },
  { key: "reviews", label: "Reviews", unit: "count" },
  { key: "superhost", label: "Superhost", unit: "text" },
  { key: "latitude", label: "Latitude", unit: "degrees" },
  { key: "longitude", label: "Longitude", unit: "degrees" },
];

const byKey = new Map<string, FieldInfo>();
for (const info of FIELD_CATALOGUE) {
  // "yearOneCashFlow" finds yearOneCashFlowUSD, "capRate" finds yearOneCapRatePercentage's label.
  for (const name of [info.path, info.path.replace(/(USD|Percentage)$/, ""), info.label])
    byKey.set(simplify(name), info);
}

function simplify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** Finds a field by its path (`revenue.p50`) or its label (`Cash-on-cash return`), ignoring case and punctuation. */
export function findField(query: string): FieldInfo | undefined {
  return byKey.get(simplify(query));
}

/** The fields an analysis of `strategy` has, in card order. */
export function fieldsOf(strategy: Strategy): FieldInfo[] {
  return FIELD_CATALOGUE.filter((f) => f.strategies.includes(strategy));
}
