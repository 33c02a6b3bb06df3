import { Comparable } from "./analysis";
import { round } from "./numbers";

/*
 * One comparable in the spec's names, whatever names the service used: the live service sends older
 * ones (observed-behaviour.md: `airbnbId`, `thumbnail_url`, `distance_meters`, `annual_revenue_ltm`,
 * `metrics.ttm`), and what investors read beyond the spec (cleaning fee, rating, reviews, superhost,
 * coordinates) under names of its own. Nothing is dropped: the old names stay beside the new.
 */

const METERS_PER_MILE = 1609.344;

type NumberField = Exclude<keyof Comparable, "platformId" | "name" | "listingUrl" | "photo_urls" | "superhost">;

/** Older names for the spec's comparable fields, first match wins; a dotted name reads inside an object. */
const COMPARABLE_ALIASES: ReadonlyArray<[keyof Comparable, readonly string[], ((v: number) => number)?]> = [
  ["platformId", ["airbnbId", "airbnb_id", "listingId", "listing_id", "vrboId", "id"]],
  ["name", ["title", "listingName"]],
  ["listingUrl", ["url", "airbnbUrl", "listing_url"]],
  ["accommodates", ["accomodates", "guests", "personCapacity"]],
  [
    "annualRevenueUSD",
    [
      "ttmRevenue",
      "ttm_revenue",
      "revenueTTM",
      "annual_revenue_ltm",
      "metrics.ttm.revenue",
      "trailingTwelveMonthRevenue",
      "annualRevenue",
      "revenue",
    ],
  ],
  ["averageDailyRateUSD", ["averageDailyRate", "ttmAvgRate", "average_daily_rate_ltm", "metrics.ttm.adr", "adr"]],
  [
    "occupancyRatePercentage",
    ["occupancyRate", "ttmOccupancy", "average_occupancy_rate_ltm", "metrics.ttm.occupancy", "occupancy"],
  ],
  ["distanceMiles", ["distance", "distance_miles"]],
  ["distanceMiles", ["distanceMeters", "distance_meters", "distanceInMeters"], (m) => m / METERS_PER_MILE],
  ["cleaningFeeUSD", ["cleaning_fee", "cleaningFee"]],
  ["rating", ["review_scores_rating", "reviewScoresRating", "avgRating"]],
  ["reviews", ["number_of_reviews", "reviewsCount", "reviewCount"]],
  ["latitude", ["lat"]],
  ["longitude", ["lng", "lon"]],
];

const TEXT_FIELDS: ReadonlySet<keyof Comparable> = new Set(["platformId", "name", "listingUrl"]);

export type RenamedComparable = Comparable & { __renamed?: true };

const SPEC_TEXT = ["platformId", "name", "listingUrl"] as const;
const SPEC_NUMBERS = [
  "bedrooms",
  "bathrooms",
  "accommodates",
  "annualRevenueUSD",
  "occupancyRatePercentage",
  "averageDailyRateUSD",
  "distanceMiles",
] as const satisfies readonly NumberField[];

/**
 * A comparable already in the spec's shape (every field there, of its type; percent occupancy):
 * the common case, and every answer the relay re-reads. Checking it by hand is about ten times
 * quicker than the schema, which matters at 50 comparables an analysis and thousands of analyses.
 */
function inSpecShape(raw: unknown): raw is Comparable {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return false;
  const c = raw as Record<string, unknown>;
  return (
    SPEC_TEXT.every((k) => typeof c[k] === "string") &&
    SPEC_NUMBERS.every((k) => typeof c[k] === "number" && Number.isFinite(c[k])) &&
    (c.occupancyRatePercentage as number) > 1 &&
    (c.occupancyRatePercentage as number) <= 100 &&
    Array.isArray(c.photo_urls) &&
    c.photo_urls.every((u) => typeof u === "string")
  );
}

function read(source: Record<string, unknown>, name: string): unknown {
  if (!name.includes(".")) return source[name];
  let at: unknown = source;
  for (const step of name.split(".")) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** What one comparable's occupancy needed: converted from a fraction, or dropped as no occupancy. */
export type OccupancyRepair = "fraction" | "dropped" | undefined;

export function normalizeComparable(
  raw: unknown,
): { comparable: RenamedComparable; occupancy: OccupancyRepair } | undefined {
  if (inSpecShape(raw)) return { comparable: { ...raw }, occupancy: undefined };
  const parsed = Comparable.safeParse(raw);
  if (!parsed.success) return undefined;
  const c: RenamedComparable = { ...parsed.data };
  const source = raw as Record<string, unknown>;
  for (const [field, aliases, convert] of COMPARABLE_ALIASES) {
    if (c[field] !== undefined) continue;
    for (const alias of aliases) {
      const value = read(source, alias);
      if (value === undefined || value === null) continue;
      if (TEXT_FIELDS.has(field)) {
        if (typeof value === "string" || typeof value === "number")
          (c as Record<string, unknown>)[field] = String(value);
      } else {
        const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
        if (typeof n === "number" && Number.isFinite(n))
          (c as Record<string, unknown>)[field] = convert ? round(convert(n), 3) : n;
      }
      if (c[field] !== undefined) {
        c.__renamed = true;
        break;
      }
    }
  }
  if (c.superhost === undefined && typeof source.is_superhost === "boolean") c.superhost = source.is_superhost;
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
  // Occupancy is a percent here: a fraction (at most 1) is converted, over 100 is no occupancy at all.
  let occupancy: OccupancyRepair;
  const o = c.occupancyRatePercentage;
  if (typeof o === "number" && o > 0 && o <= 1) {
    c.occupancyRatePercentage = round(o * 100, 4);
    occupancy = "fraction";
  } else if (typeof o === "number" && (o < 0 || o > 100)) {
    delete c.occupancyRatePercentage;
    occupancy = "dropped";
  }
  return { comparable: c, occupancy };
}
