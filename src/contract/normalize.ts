import {
  Analysis,
  AnalysisData,
  Comparable,
  Envelope,
  NormalizedEnvelope,
  PERCENTILE_KEYS,
  Percentiles,
  QUARTILE_KEYS,
  Quartile,
  Quartiles,
} from "./analysis";
import { round } from "./numbers";

/**
 * Repairs the drift integrators report (docs/service/observed-behaviour.md, "Shape drift") so every consumer
 * reads one shape. Nothing the service sent is dropped: unknown fields stay, a renamed comparable
 * field keeps its old name beside the spec's one, and each repair is described in `notes`.
 */
export function normalizeEnvelope(raw: unknown, httpStatus = 200): NormalizedEnvelope {
  const parsed = Envelope.safeParse(typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : {});
  const envelope = parsed.success ? parsed.data : { success: undefined, data: undefined, warnings: undefined };
  const { success, data, warnings, ...extra } = envelope;
  const notes: string[] = [];
  // Without an explicit `success`, a 2xx answer succeeded (enhance's warnings-only answer has no `success`).
  const out: NormalizedEnvelope = { success: success ?? (httpStatus >= 200 && httpStatus < 300), extra, notes };
  if (warnings && warnings.length > 0) out.warnings = warnings;
  if (data) out.data = normalizeAnalysis(data, notes);
  return out;
}

export function normalizeAnalysis(data: AnalysisData, notes: string[] = []): Analysis {
  const analysis: AnalysisData = { ...data };

  // Occupancy "appears both as a percent (0–100) and as a fraction (0–1)": the spec's percent fields
  // hold percents, the `occupancy` object fractions. A true occupancy of 1 % or less is not plausible,
  // so a percent field at or below 1 was sent as a fraction.
  if (
    typeof analysis.occupancyRatePercentage === "number" &&
    analysis.occupancyRatePercentage > 0 &&
    analysis.occupancyRatePercentage <= 1
  ) {
    notes.push(`occupancyRatePercentage was a fraction (${analysis.occupancyRatePercentage}); converted to percent`);
    analysis.occupancyRatePercentage = round(analysis.occupancyRatePercentage * 100, 4);
  }
  if (analysis.quartiles) analysis.quartiles = quartilesAsPercent(analysis.quartiles, notes);
  if (analysis.occupancy) analysis.occupancy = occupancyAsFractions(analysis.occupancy, notes);

  const comparables = (analysis.comparables ?? [])
    .map(normalizeComparable)
    .filter((c): c is Comparable => c !== undefined);
  const renamed = comparables.filter((c) => c.__renamed !== undefined).length;
  if (renamed > 0) notes.push(`${renamed} comparables used older field names; mapped to the spec's names`);
  for (const c of comparables) delete c.__renamed;
  const nearest = nearestFirst(comparables);

  const revenue = completePercentiles("revenue", analysis, comparables, notes);
  const adr = completePercentiles("adr", analysis, comparables, notes);
  const occupancy = completePercentiles("occupancy", analysis, comparables, notes);
  return { ...analysis, revenue, adr, occupancy, comparables: nearest };
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
 * the headline fields (avg only), then from the comparables. Occupancy comes out as fractions.
 */
function completePercentiles(
  metric: Metric,
  analysis: AnalysisData,
  comparables: Comparable[],
  notes: string[],
): Percentiles {
  const given: Percentiles = analysis[metric] ?? {};
  const result: Percentiles = { ...given };
  const filled: string[] = [];
  const scale = metric === "occupancy" ? 0.01 : 1;
  for (const key of PERCENTILE_KEYS) {
    if (typeof result[key] === "number") continue;
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

function comparablePercentile(values: readonly unknown[], key: (typeof PERCENTILE_KEYS)[number]): number | undefined {
  const numbers = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v)).sort((x, y) => x - y);
  if (numbers.length === 0) return undefined;
  if (key === "avg") return numbers.reduce((s, v) => s + v, 0) / numbers.length;
  return percentileOf(numbers, Number(key.slice(1)) / 100);
}

function occupancyAsFractions(occupancy: Percentiles, notes: string[]): Percentiles {
  const values = PERCENTILE_KEYS.map((k) => occupancy[k]).filter((v): v is number => typeof v === "number");
  if (!values.some((v) => v > 1)) return occupancy;
  notes.push("occupancy percentiles were percents; converted to fractions of 1");
  const out: Percentiles = { ...occupancy };
  for (const key of PERCENTILE_KEYS) {
    const v = out[key];
    if (typeof v === "number") out[key] = round(v / 100, 6);
  }
  return out;
}

function quartilesAsPercent(quartiles: Quartiles, notes: string[]): Quartiles {
  const entries = Object.values(QUARTILE_KEYS).map((k) => quartiles[k]);
  const rates = entries.map((q) => q?.occupancy_rate).filter((v): v is number => typeof v === "number");
  if (rates.length === 0 || rates.some((v) => v > 1)) return quartiles;
  notes.push("quartiles' occupancy_rate were fractions; converted to percent");
  const out: Quartiles = { ...quartiles };
  for (const key of Object.values(QUARTILE_KEYS)) {
    const q = out[key];
    if (q && typeof q.occupancy_rate === "number")
      out[key] = { ...q, occupancy_rate: round(q.occupancy_rate * 100, 4) };
  }
  return out;
}

const METERS_PER_MILE = 1609.344;

/** Older names integrators have seen for the spec's comparable fields, first match wins. */
const COMPARABLE_ALIASES: ReadonlyArray<[keyof Comparable, readonly string[], ((v: number) => number)?]> = [
  ["platformId", ["airbnbId", "airbnb_id", "listingId", "listing_id", "id"]],
  ["name", ["title", "listingName"]],
  ["listingUrl", ["url", "airbnbUrl", "listing_url"]],
  ["accommodates", ["accomodates", "guests", "personCapacity"]],
  [
    "annualRevenueUSD",
    ["ttmRevenue", "ttm_revenue", "revenueTTM", "trailingTwelveMonthRevenue", "annualRevenue", "revenue"],
  ],
  ["averageDailyRateUSD", ["averageDailyRate", "ttmAvgRate", "adr"]],
  ["occupancyRatePercentage", ["occupancyRate", "ttmOccupancy", "occupancy"]],
  ["distanceMiles", ["distance", "distance_miles"]],
  ["distanceMiles", ["distanceMeters", "distance_meters", "distanceInMeters"], (m) => m / METERS_PER_MILE],
];

type RenamedComparable = Comparable & { __renamed?: true };

const COMPARABLE_TEXT = ["platformId", "name", "listingUrl"] as const;
const COMPARABLE_NUMBERS = [
  "bedrooms",
  "bathrooms",
  "accommodates",
  "annualRevenueUSD",
  "occupancyRatePercentage",
  "averageDailyRateUSD",
  "distanceMiles",
] as const;

/**
 * A comparable already in the spec's shape (every field there, of its type; percent occupancy):
 * the common case, and every answer the relay re-reads. Checking it by hand is about ten times
 * quicker than the schema, which matters at 50 comparables an analysis and thousands of analyses.
 */
function inSpecShape(raw: unknown): raw is Comparable {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return false;
  const c = raw as Record<string, unknown>;
  return (
    COMPARABLE_TEXT.every((k) => typeof c[k] === "string") &&
    COMPARABLE_NUMBERS.every((k) => typeof c[k] === "number" && Number.isFinite(c[k])) &&
    (c.occupancyRatePercentage as number) > 1 &&
    Array.isArray(c.photo_urls) &&
    c.photo_urls.every((u) => typeof u === "string")
  );
}

function normalizeComparable(raw: unknown): RenamedComparable | undefined {
  if (inSpecShape(raw)) return { ...raw };
  const parsed = Comparable.safeParse(raw);
  if (!parsed.success) return undefined;
  const c: RenamedComparable = { ...parsed.data };
  const source = raw as Record<string, unknown>;
  for (const [field, aliases, convert] of COMPARABLE_ALIASES) {
    if (c[field] !== undefined) continue;
    for (const alias of aliases) {
      const value = source[alias];
      if (value === undefined || value === null) continue;
      if (field === "platformId" || field === "name" || field === "listingUrl") {
        if (typeof value === "string" || typeof value === "number")
          (c as Record<string, unknown>)[field] = String(value);
      } else {
        const n = typeof value === "string" ? Number(value) : value;
        if (typeof n === "number" && Number.isFinite(n))
          (c as Record<string, unknown>)[field] = convert ? round(convert(n), 3) : n;
      }
      if (c[field] !== undefined) {
        c.__renamed = true;
        break;
      }
    }
  }
  if (c.photo_urls === undefined) {
    const photos =
      source.photos ??
      source.photoUrls ??
      source.thumbnail ??
      source.thumbnailUrl ??
      source.thumbnail_url ??
      source.picture_url;
    if (typeof photos === "string") c.photo_urls = [photos];
    else if (Array.isArray(photos)) c.photo_urls = photos.filter((p): p is string => typeof p === "string");
    if (c.photo_urls !== undefined) c.__renamed = true;
  }
  // A fraction in a percent field, as with the analysis's own occupancy.
  if (
    typeof c.occupancyRatePercentage === "number" &&
    c.occupancyRatePercentage > 0 &&
    c.occupancyRatePercentage <= 1
  ) {
    c.occupancyRatePercentage = round(c.occupancyRatePercentage * 100, 4);
  }
  return c;
}
