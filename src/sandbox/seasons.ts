import { round } from "../contract";
import { Market } from "./markets";

/*
 * A simulated year for a market: the live service sends twelve months of figures (`revenueData`),
 * and investors read them as the market's seasonality. Real seasons shape it: a beach market peaks
 * in summer, a ski market in winter, a desert resort in late winter and spring, a city mildly in
 * summer and autumn; south of the equator the seasons turn round. Levels are simulated, not measured.
 */

export type Season = "beach" | "ski" | "desert" | "city";

/** Each month's occupancy and nightly rate as a share of the year's level (January first). */
const PROFILES: Readonly<Record<Season, { occupancy: readonly number[]; adr: readonly number[] }>> = {
  beach: {
    occupancy: [0.62, 0.7, 0.9, 1.0, 1.08, 1.3, 1.42, 1.38, 1.05, 0.88, 0.72, 0.7],
    adr: [0.8, 0.82, 0.92, 0.98, 1.05, 1.22, 1.3, 1.28, 1.02, 0.92, 0.84, 0.85],
  },
  ski: {
    occupancy: [1.45, 1.5, 1.35, 0.9, 0.55, 0.8, 0.95, 0.9, 0.7, 0.62, 0.78, 1.25],
    adr: [1.35, 1.4, 1.25, 0.9, 0.7, 0.8, 0.88, 0.85, 0.78, 0.75, 0.9, 1.4],
  },
  desert: {
    occupancy: [1.2, 1.35, 1.4, 1.25, 0.95, 0.6, 0.55, 0.58, 0.75, 1.0, 1.15, 1.2],
    adr: [1.15, 1.3, 1.35, 1.2, 0.95, 0.72, 0.68, 0.7, 0.82, 1.0, 1.1, 1.05],
  },
  city: {
    occupancy: [0.82, 0.86, 0.95, 1.02, 1.06, 1.1, 1.12, 1.1, 1.06, 1.04, 0.95, 0.92],
    adr: [0.9, 0.92, 0.97, 1.0, 1.04, 1.08, 1.08, 1.06, 1.04, 1.03, 0.95, 0.93],
  },
};

const SKI = new Set(["breckenridge-co", "park-city-ut", "lake-tahoe-ca", "big-bear-ca"]);
const DESERT = new Set(["scottsdale-az", "palm-springs-ca", "joshua-tree-ca", "las-vegas-nv"]);
const BEACH_WORDS = /beach|destin|cape cod|galveston|myrtle|maui|honolulu|san diego|savannah|charleston/i;

export function seasonOf(market: Market): Season {
  if (SKI.has(market.id)) return "ski";
  if (DESERT.has(market.id)) return "desert";
  if (BEACH_WORDS.test(market.name)) return "beach";
  return "city";
}

export const MONTH_KEYS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `revenueData` as the live service sends it (observed-behaviour.md): a month's average nightly rate,
 * occupancy in percent and revenue, keyed by month. The year's levels are the analysis's own, so the
 * months average to its nightly rate and occupancy.
 */
export function revenueDataFor(
  market: Market,
  lat: number,
  ratePerNightUSD: number,
  occupancyFraction: number,
): Record<string, { average_daily_rate: number; average_occupancy_rate: number; average_revenue: number }> {
  const profile = PROFILES[seasonOf(market)];
  const south = lat < 0;
  return Object.fromEntries(
    MONTH_KEYS.map((key, i) => {
      const m = south ? (i + 6) % 12 : i;
      const adr = round(ratePerNightUSD * (profile.adr[m] as number), 2);
      const occupancy = Math.min(0.98, Math.max(0.05, occupancyFraction * (profile.occupancy[m] as number)));
      return [
        key,
        {
          average_daily_rate: adr,
          average_occupancy_rate: round(occupancy * 100, 2),
          average_revenue: round(adr * occupancy * (DAYS[i] as number), 2),
        },
      ];
    }),
  );
}
