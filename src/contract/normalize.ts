import {
  Analysis,
  AnalysisData,
  Comparable,
  MAX_COMPARABLES,
  NORMALIZED_MARK,
  NORMALIZER_VERSION,
  NormalizedEnvelope,
  NormalizedMark,
  PERCENTILE_KEYS,
  PercentileKey,
  Percentiles,
  QUARTILE_KEYS,
  Quartile,
  Quartiles,
  LooseNumber,
  Warnings,
} from "./analysis";
import { monthlyOf } from "./monthly";
import { normalizeComparable } from "./normalize-comparable";
import { round } from "./numbers";
import {
  PERCENT_RULES,
  readOccupancyPercent,
  readOccupancyPercentiles,
  readReturnPercent,
  readRangedPercent,
} from "./units";

/*
 * Repairs the drift integrators report (observed-behaviour.md, "Shape drift") so every consumer reads
 * one shape, once: the relay normalises what the service sent and marks it (`_normalized`); a marked
 * analysis is read as it is. Nothing the service sent is dropped but a value no unit makes plausible,
 * and each repair is a note the layouts show beside the figures.
 */

/** What the relay knows of the request an answer is for: a buy's price checks the answer's cap rate. */
export interface NormalizeContext {
  purchasePriceUSD?: number | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The analysis fields the spec names: data holding none of them is not an analysis. */
const ANALYSIS_KEYS: readonly string[] = [...Object.keys(AnalysisData.shape), "revenueData"];

/** Whether `data` holds an analysis: at least one of the spec's fields, with a value. */
export function looksLikeAnalysis(data: unknown): data is Record<string, unknown> {
  return isObject(data) && ANALYSIS_KEYS.some((k) => data[k] !== undefined && data[k] !== null);
}

/** Where some answers put the analysis instead of `data` itself. */
const WRAPPERS = ["analysis", "data", "result"] as const;

export function normalizeEnvelope(raw: unknown, httpStatus = 200, context: NormalizeContext = {}): NormalizedEnvelope {
  const body = isObject(raw) ? raw : {};
  const { success: rawSuccess, data: rawData, warnings: rawWarnings, warning: rawWarning, ...extra } = body;
  const notes: string[] = [];
  // Without an explicit `success`, a 2xx answer succeeded (enhance's warnings-only answer has no `success`).
  const success = typeof rawSuccess === "boolean" ? rawSuccess : httpStatus >= 200 && httpStatus < 300;
  const out: NormalizedEnvelope = { success, extra, notes };
  const warnings = [...(Warnings.parse(rawWarnings) ?? []), ...(Warnings.parse(rawWarning) ?? [])];
  if (warnings.length > 0) out.warnings = warnings;

  let data: unknown = rawData;
  if (!looksLikeAnalysis(data) && isObject(data)) {
    const inner = WRAPPERS.find((k) => looksLikeAnalysis((data as Record<string, unknown>)[k]));
    if (inner) {
      data = (data as Record<string, unknown>)[inner];
      notes.push(`the analysis came wrapped in data.${inner}; read from there`);
    }
  }
  if (!looksLikeAnalysis(data)) return out;
  if (!success) {
    // The analysis is answered (success, as the relay's own error shape is `success: false`), marked
    // by a note; what the service said is kept under `upstream`, not as an `error` the relay's shape gives a meaning.
    const said = errorText(body.error);
    notes.push(
      `SERVICE ERROR: the service answered success: false${said ? ` ("${said}")` : ""} with figures; they are shown as it sent them`,
    );
    const { error, ...rest } = extra;
    out.success = true;
    out.extra = { ...rest, upstream: { success: false, error } };
  }
  const parsed = AnalysisData.safeParse(data);
  if (parsed.success) out.data = normalizeAnalysis(parsed.data, notes, context, data);
  return out;
}

/** The service's error text, from `error` as text or `{message}`. */
export function errorText(error: unknown): string {
  if (typeof error === "string") return error.trim().slice(0, 300);
  if (isObject(error) && typeof error.message === "string") return error.message.trim().slice(0, 300);
  return "";
}

/** The relay's mark on an analysis, when it has one (NormalizedMark). */
export function normalizedMarkOf(data: unknown): NormalizedMark | undefined {
  if (!isObject(data)) return undefined;
  const mark = NormalizedMark.safeParse(data[NORMALIZED_MARK]);
  return mark.success ? mark.data : undefined;
}

/**
 * A marked analysis with the names of this version: one cached or stored before version 3 named the
 * months' nightly rate `adrUSD`. The relay's answers and the sheet's reading both go through it.
 */
export function markedUpToDate<T extends AnalysisData>(data: T): T {
  const monthly = (data as { monthly?: unknown }).monthly;
  if ((normalizedMarkOf(data)?.version ?? NORMALIZER_VERSION) >= 3 || !Array.isArray(monthly)) return data;
  const renamed = monthly.map((m: unknown) => {
    if (!isObject(m) || !("adrUSD" in m)) return m;
    const { adrUSD, ...rest } = m;
    return { ...rest, ratePerNightUSD: adrUSD };
  });
  return { ...data, monthly: renamed };
}

/**
 * The analysis in one shape. `notes` gets one line per repair (and is stored in the mark); `raw`,
 * the data as sent, tells a value that was not a number from one that was not sent.
 */
export function normalizeAnalysis(
  data: AnalysisData,
  notes: string[] = [],
  context: NormalizeContext = {},
  raw: unknown = data,
): Analysis {
  if (normalizedMarkOf(data)) return markedUpToDate(data as Analysis);
  const analysis: AnalysisData = { ...data };
  notes.push(...unreadNumbers(raw, analysis));

  readScalarPercents(analysis, notes);
  const rejected = new Set<string>();
  if (analysis.quartiles) analysis.quartiles = quartilesRead(analysis.quartiles, notes, rejected);
  if (analysis.occupancy) analysis.occupancy = occupancyRead(analysis.occupancy, notes, rejected);

  let renamed = 0;
  let fractions = 0;
  let dropped = 0;
  const comparables: Comparable[] = [];
  for (const item of analysis.comparables ?? []) {
    const read = normalizeComparable(item);
    if (!read) continue;
    const { __renamed, ...comparable } = read.comparable;
    if (__renamed) renamed++;
    if (read.occupancy === "fraction") fractions++;
    if (read.occupancy === "dropped") dropped++;
    comparables.push(comparable);
  }
  if (renamed > 0) notes.push(`${renamed} comparables used older field names; mapped to the spec's names`);
  if (fractions > 0) notes.push(`${fractions} comparables gave occupancy as a fraction; read as a percent`);
  if (dropped > 0) notes.push(`${dropped} comparables gave an occupancy outside 0–100 %; left blank`);
  if (comparables.length > MAX_COMPARABLES)
    notes.push(`the service sent ${comparables.length} comparables; the spec says at most ${MAX_COMPARABLES}`);

  const revenue = completePercentiles("revenue", analysis, comparables, notes, rejected);
  const adr = completePercentiles("adr", analysis, comparables, notes, rejected);
  const occupancy = completePercentiles("occupancy", analysis, comparables, notes, rejected);
  readReturns(analysis, notes, context);

  const months = monthlyOf(analysis.revenueData);
  if (months) notes.push(...months.notes);
  const result: Analysis = {
    ...analysis,
    revenue,
    adr,
    occupancy,
    comparables: nearestFirst(comparables),
    ...(months && months.monthly.length > 0 ? { monthly: months.monthly } : {}),
  };
  result[NORMALIZED_MARK] = { version: NORMALIZER_VERSION, notes: [...notes] };
  return result;
}

/** Notes on known number fields that were sent but are not numbers ("about 200"): blank, and why. */
function unreadNumbers(raw: unknown, parsed: AnalysisData): string[] {
  if (!isObject(raw)) return [];
  const shape = AnalysisData.shape as Record<string, unknown>;
  const notes: string[] = [];
  const check = (name: string, value: unknown, read: unknown) => {
    const sent = value !== undefined && value !== null && typeof value !== "object";
    if (sent && read === undefined) notes.push(`${name} (${JSON.stringify(value)}) is not a number; left blank`);
  };
  for (const [key, value] of Object.entries(raw)) {
    if (shape[key] === LooseNumber) check(key, value, parsed[key]);
  }
  for (const metric of ["revenue", "adr", "occupancy"] as const) {
    const sent = raw[metric];
    if (!isObject(sent)) continue;
    for (const key of PERCENTILE_KEYS) check(`${metric} ${key}`, sent[key], parsed[metric]?.[key]);
  }
  return notes;
}

/** occupancyRatePercentage and the percent fields whose range tells their unit (units.ts). */
function readScalarPercents(analysis: AnalysisData, notes: string[]): void {
  const record = analysis as Record<string, unknown>;
  if (typeof analysis.occupancyRatePercentage === "number")
    apply(
      record,
      "occupancyRatePercentage",
      readOccupancyPercent("occupancy", analysis.occupancyRatePercentage),
      notes,
    );
  for (const [name, rule] of Object.entries(PERCENT_RULES)) {
    const value = record[name];
    if (typeof value === "number") apply(record, name, readRangedPercent(name, value, rule), notes);
  }
}

function apply(
  record: Record<string, unknown>,
  name: string,
  reading: { value: number | undefined; note?: string },
  notes: string[],
): void {
  if (reading.note) notes.push(reading.note);
  if (reading.value === undefined) delete record[name];
  else record[name] = reading.value;
}

/**
 * The returns, each checked against the figures it is computed from (the financial model of
 * observed-behaviour.md): cash-on-cash and ROI from the cash invested, the cap rate from the price.
 */
function readReturns(analysis: AnalysisData, notes: string[], context: NormalizeContext): void {
  const record = analysis as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const cash = n(analysis.totalCashInvestment);
  const cashFlow = n(analysis.yearOneCashFlowUSD);
  const income = n(analysis.yearOneOperatingIncomeUSD);
  const price = n(context.purchasePriceUSD) ?? n(record.purchasePriceUSD) ?? priceFromAnswer(analysis);
  const share = (part: number | undefined, whole: number | undefined) =>
    part !== undefined && whole !== undefined && whole > 0 ? (part / whole) * 100 : undefined;
  const gain =
    cashFlow === undefined
      ? undefined
      : cashFlow + (n(analysis.yearOnePrincipalPaydownUSD) ?? 0) + (n(analysis.yearOneAppreciationUSD) ?? 0);
  const expected: Record<string, number | undefined> = {
    yearOneCashOnCashPercentage: share(cashFlow, cash),
    yearOneCapRatePercentage: share(income, price),
    yearOneReturnOnInvestmentPercentage: share(gain, cash),
  };
  const names: Record<string, string> = {
    yearOneCashOnCashPercentage: "cash-on-cash return",
    yearOneCapRatePercentage: "cap rate",
    yearOneReturnOnInvestmentPercentage: "return on investment",
  };
  for (const [field, value] of Object.entries(expected)) {
    const v = record[field];
    if (typeof v === "number") apply(record, field, readReturnPercent(names[field] as string, v, value), notes);
  }
}

/** The price the answer implies: a year's property tax over its rate, else a year's appreciation at 3 %. */
function priceFromAnswer(a: AnalysisData): number | undefined {
  const taxes = a.monthlyTaxesUSD;
  const rate = a.propertyTaxPercentage;
  if (typeof taxes === "number" && typeof rate === "number" && rate > 0) return (taxes * 12 * 100) / rate;
  if (typeof a.yearOneAppreciationUSD === "number" && a.yearOneAppreciationUSD > 0)
    return (a.yearOneAppreciationUSD * 100) / 3;
  return undefined;
}

/** Quartiles keep the service's shape (occupancy_rate a percent), each rate read by itself (units.ts). */
function quartilesRead(quartiles: Quartiles, notes: string[], rejected: Set<string>): Quartiles {
  const rates: Partial<Record<PercentileKey, number>> = {};
  for (const key of PERCENTILE_KEYS) {
    const rate = quartiles[QUARTILE_KEYS[key]]?.occupancy_rate;
    if (typeof rate === "number") rates[key] = rate;
  }
  const read = readOccupancyPercentiles("quartiles' occupancy_rate", rates, "percent");
  notes.push(...read.notes);
  const out: Quartiles = { ...quartiles };
  for (const key of PERCENTILE_KEYS) {
    const q = out[QUARTILE_KEYS[key]];
    if (!q || typeof q.occupancy_rate !== "number") continue;
    const fraction = read.values[key];
    const entry: Quartile = { ...q };
    if (fraction === undefined) {
      delete entry.occupancy_rate;
      rejected.add(`occupancy.${key}`);
    } else entry.occupancy_rate = round(fraction * 100, 4);
    out[QUARTILE_KEYS[key]] = entry;
  }
  return out;
}

function occupancyRead(occupancy: Percentiles, notes: string[], rejected: Set<string>): Percentiles {
  const read = readOccupancyPercentiles("occupancy", occupancy);
  notes.push(...read.notes);
  const out: Percentiles = { ...occupancy };
  for (const key of PERCENTILE_KEYS) {
    if (typeof occupancy[key] !== "number") continue;
    const value = read.values[key];
    if (value === undefined) {
      delete out[key];
      rejected.add(`occupancy.${key}`);
    } else out[key] = value;
  }
  return out;
}

/**
 * Comparables nearest first, by distanceMiles; those without a distance after them, in the service's
 * order. "The nearest five" (STR.COMPS, str-screen's --comps, the relay's maxComparables) is then the
 * first five, whatever order the service sent them in.
 */
export function nearestFirst<C extends { distanceMiles?: number | undefined }>(comparables: readonly C[]): C[] {
  const distance = (c: C) =>
    typeof c.distanceMiles === "number" && Number.isFinite(c.distanceMiles) ? c.distanceMiles : Infinity;
  // Array.prototype.sort is stable: equal distances keep the service's order.
  return [...comparables].sort((a, b) => distance(a) - distance(b));
}

type Metric = "revenue" | "adr" | "occupancy";
const QUARTILE_FIELD: Record<Metric, keyof Quartile> = {
  revenue: "revenue",
  adr: "average_daily_rate",
  occupancy: "occupancy_rate",
};
const COMPARABLE_FIELD: Record<Metric, keyof Comparable> = {
  revenue: "annualRevenueUSD",
  adr: "averageDailyRateUSD",
  occupancy: "occupancyRatePercentage",
};

/**
 * The percentile object for `metric`, with each missing value filled in from `quartiles`, then from
 * the headline fields (avg only), then from the comparables. Occupancy comes out as fractions. A
 * value left blank as implausible (`rejected`) is not filled from elsewhere: its note says why.
 */
function completePercentiles(
  metric: Metric,
  analysis: AnalysisData,
  comparables: Comparable[],
  notes: string[],
  rejected: ReadonlySet<string>,
): Percentiles {
  const given: Percentiles = analysis[metric] ?? {};
  const result: Percentiles = { ...given };
  const filled: string[] = [];
  const scale = metric === "occupancy" ? 0.01 : 1;
  for (const key of PERCENTILE_KEYS) {
    if (typeof result[key] === "number" || rejected.has(`${metric}.${key}`)) continue;
    const quartile = analysis.quartiles?.[QUARTILE_KEYS[key]];
    const fromQuartile = quartile?.[QUARTILE_FIELD[metric]];
    let value: number | undefined = typeof fromQuartile === "number" ? fromQuartile * scale : undefined;
    let source = "quartiles";
    if (value === undefined && key === "avg") {
      value = headlineAverage(metric, analysis);
      source = "the headline fields";
    }
    if (value === undefined) {
      value = comparablePercentile(
        comparables.map((c) => c[COMPARABLE_FIELD[metric]]),
        key,
      );
      if (value !== undefined) value *= scale;
      source = "the comparables";
    }
    if (value !== undefined) {
      result[key] = round(value, metric === "occupancy" ? 4 : 2);
      filled.push(`${key} from ${source}`);
    }
  }
  if (filled.length > 0)
    notes.push(`${metric} ${analysis[metric] ? "was incomplete" : "was missing"}: ${filled.join(", ")}`);
  return result;
}

function headlineAverage(metric: Metric, a: AnalysisData): number | undefined {
  if (metric === "adr") return a.ratePerNightUSD;
  if (metric === "occupancy")
    return typeof a.occupancyRatePercentage === "number" ? a.occupancyRatePercentage / 100 : undefined;
  if (typeof a.ratePerNightUSD === "number" && typeof a.occupancyRatePercentage === "number") {
    return (a.ratePerNightUSD * a.occupancyRatePercentage * 365) / 100;
  }
  return undefined;
}

/** Percentile by linear interpolation between closest ranks (the spreadsheet PERCENTILE.INC rule). */
export function percentileOf(sorted: readonly number[], fraction: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = fraction * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (rank - lo);
}

function comparablePercentile(values: readonly unknown[], key: PercentileKey): number | undefined {
  const numbers = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v)).sort((x, y) => x - y);
  if (numbers.length === 0) return undefined;
  if (key === "avg") return numbers.reduce((s, v) => s + v, 0) / numbers.length;
  return percentileOf(numbers, Number(key.slice(1)) / 100);
}
