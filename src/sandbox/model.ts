import {
  AiFunction,
  AnalysisData,
  Comparable,
  CreateRequest,
  MAX_COMPARABLES,
  PERCENTILE_KEYS,
  Percentiles,
  Quartiles,
  Strategy,
  percentileOf,
  round,
} from "../contract";
import { MODEL_DEFAULTS, annualRevenue, arbModel, cohostModel, furnishingUSD, mortgageStrategyModel } from "../model";
import { Place, placeOfAddress, placeOfPoint } from "./markets";
import { normal, pick, seeded, unit } from "./random";
import { revenueDataFor } from "./seasons";

/*
 * The simulated underwriting model: where the property is, which listings compare, what they
 * earn, and each strategy's financials (the shared formulas in contract/finance.ts). Everything is
 * a pure function of the request, so an answer can be recomputed from its inputs.
 */

export const SANDBOX_NOTICE = "Simulated by the STR sandbox: not market data.";

/** Seconds the live service allows an AI step before giving up (spec: "allow up to 90 seconds"). */
export const AI_LIMIT_SECONDS = 90;
/** AI comparables need this many usable listing photos for the address (spec). */
export const MIN_AI_PHOTOS = 8;

export function placeOf(request: {
  lat?: number | undefined;
  lng?: number | undefined;
  fullAddress?: string | undefined;
  country?: string | undefined;
}): Place {
  if (request.lat !== undefined && request.lng !== undefined)
    return placeOfPoint(request.lat, request.lng, request.country);
  return placeOfAddress(request.fullAddress ?? "", request.country);
}

/** Usable listing photos gathered for the address: most places have plenty, about one in seven has fewer than 8. */
export function usablePhotoCount(place: Place): number {
  const u = unit("photos", place.key);
  return u < 0.15 ? 2 + Math.floor((u / 0.15) * 6) : 8 + Math.floor(((u - 0.15) / 0.85) * 23);
}

const ADJECTIVES = [
  "Sunny",
  "Cozy",
  "Modern",
  "Charming",
  "Bright",
  "Quiet",
  "Stylish",
  "Spacious",
  "Rustic",
  "Breezy",
  "Classic",
  "Hidden",
];
const KINDS = ["Bungalow", "Cottage", "Condo", "Loft", "Townhome", "Retreat", "Cabin", "Flat", "House", "Villa"];

/** A simulated nightly rate grows with bedrooms: a two-bedroom is the market's level. */
function bedroomFactor(bedrooms: number): number {
  return 0.6 + 0.2 * bedrooms;
}

/** Up to 50 simulated listings around the place, nearest first. */
export function comparablesFor(place: Place, bedrooms: number, baseUrl: string): Comparable[] {
  const next = seeded(`comps:${place.key}:${bedrooms}`);
  const { market } = place;
  const count = market.known ? 30 + Math.floor(next() * 21) : 8 + Math.floor(next() * 28);
  const comps: Comparable[] = [];
  for (let i = 0; i < Math.min(count, MAX_COMPARABLES); i++) {
    const beds = Math.max(0, bedrooms + pick(next, [-1, 0, 0, 0, 1]));
    const baths = Math.max(1, Math.round((beds * 0.6 + 0.5 + next() * 0.8) * 2) / 2);
    const guests = Math.max(1, beds * 2 + Math.floor(next() * 3));
    const distance = round(0.1 + next() ** 1.5 * (market.known ? 4.9 : 14.9), 2);
    const adr = round(market.ratePerNightUSD * bedroomFactor(beds) * Math.exp(normal(next, 0, 0.22)), 2);
    const occupancy = Math.min(0.93, Math.max(0.18, normal(next, market.occupancy, 0.09)));
    const platformId = String(1_000_000_000 + Math.floor(next() * 8_999_999_999));
    const label = `${pick(next, ADJECTIVES)} ${beds === 0 ? "Studio" : `${beds}BR`} ${pick(next, KINDS)}`;
    comps.push({
      platformId,
      name: `${label} (sandbox)`,
      listingUrl: `${baseUrl}/listings/${platformId}`,
      bedrooms: beds,
      bathrooms: baths,
      accommodates: guests,
      annualRevenueUSD: round(annualRevenue(adr, occupancy), 2),
      occupancyRatePercentage: round(occupancy * 100, 2),
      averageDailyRateUSD: adr,
      distanceMiles: distance,
      photo_urls: [1, 2, 3].map((n) => `${baseUrl}/photos/${platformId}/${n}.svg`),
    });
  }
  return comps.sort((a, b) => (a.distanceMiles ?? 0) - (b.distanceMiles ?? 0));
}

/**
 * What AI comparables select: the listings most like the subject (bedrooms first, then bathrooms,
 * guests and distance), fifteen at most and five at least.
 */
export function aiSelectedComparables(
  comps: readonly Comparable[],
  request: { bedrooms: number; bathrooms: number; accomodates: number },
): Comparable[] {
  const score = (c: Comparable) =>
    Math.abs((c.bedrooms ?? 0) - request.bedrooms) * 3 +
    Math.abs((c.bathrooms ?? 0) - request.bathrooms) +
    Math.abs((c.accommodates ?? 0) - request.accomodates) * 0.3 +
    (c.distanceMiles ?? 0) * 0.4;
  const ranked = [...comps].sort((a, b) => score(a) - score(b));
  const close = ranked.filter((c) => c.bedrooms === request.bedrooms);
  return ranked.slice(0, Math.min(15, Math.max(5, close.length)));
}

function percentiles(values: number[], decimals: number): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const out: Percentiles = {};
  for (const key of PERCENTILE_KEYS) {
    const v =
      key === "avg"
        ? sorted.reduce((s, x) => s + x, 0) / sorted.length
        : percentileOf(sorted, Number(key.slice(1)) / 100);
    out[key] = round(v ?? 0, decimals);
  }
  return out;
}

export function marketPercentiles(comps: readonly Comparable[]): {
  revenue: Percentiles;
  adr: Percentiles;
  occupancy: Percentiles;
} {
  return {
    revenue: percentiles(
      comps.map((c) => c.annualRevenueUSD ?? 0),
      2,
    ),
    adr: percentiles(
      comps.map((c) => c.averageDailyRateUSD ?? 0),
      2,
    ),
    occupancy: percentiles(
      comps.map((c) => (c.occupancyRatePercentage ?? 0) / 100),
      4,
    ),
  };
}

export function quartilesOf(p: { revenue: Percentiles; adr: Percentiles; occupancy: Percentiles }): Quartiles {
  const entry = (k: "p25" | "p50" | "p75" | "p90") => ({
    average_daily_rate: p.adr[k],
    occupancy_rate: round((p.occupancy[k] ?? 0) * 100, 2),
    revenue: p.revenue[k],
  });
  return {
    "25th_percentile": entry("p25"),
    "50th_percentile": entry("p50"),
    "75th_percentile": entry("p75"),
    "90th_percentile": entry("p90"),
  };
}

/** Operating expenses by category, a year, USD. Mortgage and property tax are not operating expenses. */
export function categoryExpenses(
  strategy: Strategy,
  request: CreateRequest,
  yearOneRevenueUSD: number,
): Record<string, number> {
  const price = "purchasePriceUSD" in request && request.purchasePriceUSD !== undefined ? request.purchasePriceUSD : 0;
  const ownsIt = strategy === "buy" || strategy === "owned";
  return {
    utilities: (150 + 45 * request.bedrooms) * 12,
    internetAndStreaming: 80 * 12,
    supplies: yearOneRevenueUSD * 0.04,
    maintenance: yearOneRevenueUSD * 0.05,
    platformFees: yearOneRevenueUSD * 0.03,
    insurance: ownsIt ? price * 0.0045 : 360,
    software: 40 * 12,
  };
}

/** AI expense estimates: the categories re-weighed for the place (within −18 % and +12 % of the defaults). */
export function aiExpenses(defaults: Record<string, number>, place: Place): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [category, value] of Object.entries(defaults)) {
    out[category] = value * (0.82 + unit("ai-expense", place.key, category) * 0.3);
  }
  return out;
}

export interface AiApplied {
  addAIComps: boolean;
  addAIExpenseEstimates: boolean;
}

/** Builds the whole analysis of a create request, with the AI functions that completed applied. */
export function buildAnalysis(
  strategy: Strategy,
  request: CreateRequest,
  place: Place,
  applied: AiApplied,
  id: string,
  baseUrl: string,
): AnalysisData {
  const all = comparablesFor(place, request.bedrooms, baseUrl);
  const comparables = applied.addAIComps ? aiSelectedComparables(all, request) : all;
  const levels = marketPercentiles(comparables);
  const ratePerNightUSD = levels.adr.p50 ?? 0;
  const occupancyRatePercentage = round((levels.occupancy.p50 ?? 0) * 100, 2);
  const yearOneRevenueUSD = round(annualRevenue(ratePerNightUSD, occupancyRatePercentage / 100), 2);
  const defaults = categoryExpenses(strategy, request, yearOneRevenueUSD);
  const expenses = applied.addAIExpenseEstimates ? aiExpenses(defaults, place) : defaults;
  const annualOperatingExpensesUSD = Object.values(expenses).reduce((s, v) => s + v, 0);
  const fullAddress = request.fullAddress ?? `${place.lat}, ${place.lng} (${place.market.name})`;

  return {
    _id: id,
    url: `${baseUrl}/reports/${id}`,
    currency: "USD",
    ratePerNightUSD,
    occupancyRatePercentage,
    bedrooms: request.bedrooms,
    bathrooms: request.bathrooms,
    commonSpaces: request.bedrooms >= 3 ? 2 : 1,
    accomodates: request.accomodates,
    fullAddress,
    location: { type: "Point", coordinates: [place.lng, place.lat] },
    ...levels,
    quartiles: quartilesOf(levels),
    // The live service's twelve months (not in the spec), simulated by the market's season.
    revenueData: revenueDataFor(place.market, place.lat, ratePerNightUSD, occupancyRatePercentage / 100),
    comparables,
    ...strategyFields(strategy, request, place, yearOneRevenueUSD, annualOperatingExpensesUSD),
    // Not in the spec; the live service sends extra fields too (docs/service/observed-behaviour.md).
    simulated: true,
    dataSource: SANDBOX_NOTICE,
    market: place.market.name,
    aiComparablesApplied: applied.addAIComps,
    aiExpenseEstimatesApplied: applied.addAIExpenseEstimates,
    operatingExpensesUSD: Object.fromEntries(Object.entries(expenses).map(([k, v]) => [k, round(v, 2)])),
  };
}

function strategyFields(
  strategy: Strategy,
  request: CreateRequest,
  place: Place,
  yearOneRevenueUSD: number,
  annualOperatingExpensesUSD: number,
) {
  const furnishing = furnishingUSD(request.bedrooms);
  switch (strategy) {
    case "buy":
    case "owned": {
      const r = request as Extract<CreateRequest, { purchasePriceUSD: number }> & Record<string, number | undefined>;
      const price = r.purchasePriceUSD;
      const mortgageLength = strategy === "owned" ? (r.mortgageLength as number) : MODEL_DEFAULTS.mortgageLength;
      return mortgageStrategyModel({
        purchasePriceUSD: price,
        downPaymentPercentage:
          strategy === "owned" ? (r.downPaymentPercentage as number) : MODEL_DEFAULTS.downPaymentPercentage,
        interestRatePercentage: r.interestRatePercentage ?? MODEL_DEFAULTS.interestRatePercentage,
        mortgageLength,
        yearsRemainingOnMortgage: strategy === "owned" ? (r.yearsRemainingOnMortgage as number) : mortgageLength,
        propertyTaxPercentage: MODEL_DEFAULTS.propertyTaxPercentage,
        closingCostPercentage: MODEL_DEFAULTS.closingCostPercentage,
        furnishingUSD: furnishing,
        appreciationPercentage: MODEL_DEFAULTS.appreciationPercentage,
        yearOneRevenueUSD,
        annualOperatingExpensesUSD,
        ltrPerMonthUSD: r.monthlyRentUSD ?? round(price * place.market.ltrYield, 2),
        ltrMonthlyExpensesPercentage: MODEL_DEFAULTS.ltrMonthlyExpensesPercentage,
      });
    }
    case "arb":
      return arbModel({
        monthlyRentUSD: (request as { monthlyRentUSD: number }).monthlyRentUSD,
        yearOneRevenueUSD,
        annualOperatingExpensesUSD,
        furnishingUSD: furnishing,
        depositMonths: MODEL_DEFAULTS.arbDepositMonths,
      });
    case "cohost":
      return cohostModel({
        yearOneRevenueUSD,
        annualOperatingExpensesUSD,
        cohostCommissionPercentage:
          (request as { cohostCommissionPercentage?: number }).cohostCommissionPercentage ??
          MODEL_DEFAULTS.cohostCommissionPercentage,
      });
  }
}

/** How one AI step ended, and how long it took in the live service's seconds. */
export type AiOutcome =
  | { fn: AiFunction; completed: true; seconds: number }
  | { fn: AiFunction; completed: false; seconds: number; reason: string; code: string };

export interface AiRates {
  aiFailureRate: number;
  aiTimeoutRate: number;
}

/**
 * Runs one AI step of the simulation. AI comparables need a US address with at least 8 usable
 * photos (spec); any step may fail or time out, decided by the input (`subject`) so that the same
 * request meets the same fate.
 */
export function runAiStep(
  fn: AiFunction,
  phase: "create" | "enhance",
  place: Place,
  subject: string,
  rates: AiRates,
): AiOutcome {
  const work =
    fn === "addAIComps"
      ? phase === "create"
        ? 40 + unit("ai-time", fn, subject) * 40
        : 15 + unit("ai-time", fn, subject) * 15 // photos were gathered after creation: enhance is faster
      : 5 + unit("ai-time", fn, subject) * 10;
  if (fn === "addAIComps") {
    if (!place.us) {
      return {
        fn,
        completed: false,
        seconds: 1,
        code: "AI_COMPS_US_ONLY",
        reason: "skipped: AI comparables are available for US properties only; standard comparables were used",
      };
    }
    const photos = usablePhotoCount(place);
    if (photos < MIN_AI_PHOTOS) {
      return {
        fn,
        completed: false,
        seconds: 2,
        code: "AI_COMPS_TOO_FEW_PHOTOS",
        reason: `skipped: only ${photos} usable listing photos were found for this address and AI comparables need at least ${MIN_AI_PHOTOS}; standard comparables were used`,
      };
    }
  }
  const dice = unit("ai-outcome", fn, phase, subject);
  const fallback = fn === "addAIComps" ? "standard comparables were used" : "category default expenses were used";
  if (dice < rates.aiFailureRate) {
    return {
      fn,
      completed: false,
      seconds: work / 2,
      code: "AI_STEP_FAILED",
      reason: `failed: the AI step could not complete; ${fallback}`,
    };
  }
  if (dice < rates.aiFailureRate + rates.aiTimeoutRate) {
    return {
      fn,
      completed: false,
      seconds: AI_LIMIT_SECONDS,
      code: "AI_STEP_TIMEOUT",
      reason: `timed out after ${AI_LIMIT_SECONDS} s; ${fallback}`,
    };
  }
  return { fn, completed: true, seconds: work };
}

/** A report takes 10–30 s to create in the live service, fixed here by the input. */
export function reportSeconds(subject: string): number {
  return 10 + unit("report-time", subject) * 20;
}
