import { AnalysisData, round } from "../contract";

/**
 * An answer in the drifted shapes integrators report (docs/service/observed-behaviour.md, "Shape drift"): no
 * percentile objects (only quartiles, with an extra `average`), occupancy as a fraction where the
 * spec has a percent, older comparable field names, and extra fields. The relay must read it.
 */
export function driftShape(data: AnalysisData): AnalysisData {
  const { revenue, adr, occupancy, comparables, quartiles, occupancyRatePercentage, ...rest } = data;
  return {
    ...rest,
    occupancyRatePercentage:
      typeof occupancyRatePercentage === "number" ? round(occupancyRatePercentage / 100, 4) : occupancyRatePercentage,
    quartiles: {
      ...quartiles,
      average: {
        average_daily_rate: adr?.avg,
        occupancy_rate: round((occupancy?.avg ?? 0) * 100, 2),
        revenue: revenue?.avg,
      },
    },
    county: "Simulated County",
    marketId: `mkt_${String(data.market ?? "local")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")}`,
    revenueData: Object.fromEntries(
      ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"].map((m, i) => [
        `2026-${m}`,
        round(((revenue?.p50 ?? 0) / 12) * (0.8 + 0.4 * Math.sin((i / 12) * 2 * Math.PI) ** 2), 2),
      ]),
    ),
    comparables: (comparables as Record<string, unknown>[] | undefined)?.map((c) => {
      const { platformId, photo_urls, distanceMiles, annualRevenueUSD, ...others } = c;
      return {
        ...others,
        airbnbId: platformId,
        thumbnail: Array.isArray(photo_urls) ? photo_urls[0] : undefined,
        distanceMeters: typeof distanceMiles === "number" ? Math.round(distanceMiles * 1609.344) : undefined,
        ttmRevenue: annualRevenueUSD,
      };
    }),
  };
}
