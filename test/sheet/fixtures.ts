import { RelayAnswer } from "../../src/contract";

/**
 * Hand-built relay answers, shaped as the relay sends them (the service's envelope plus `relay`).
 * Figures are round so a test can state what a cell must hold.
 */

function answer(body: unknown): RelayAnswer {
  // Parsed, so a fixture that drifts from the relay's shape fails here rather than passing by accident.
  return RelayAnswer.parse(body);
}

const percentiles = (p25: number, p50: number, p75: number, p90: number, avg: number) => ({ p25, p50, p75, p90, avg });

const comparable = (n: number) => ({
  platformId: `L${n}`,
  name: `Listing ${n}`,
  listingUrl: `https://listings.example/${n}`,
  bedrooms: 3,
  bathrooms: 2,
  accommodates: 6 + n,
  annualRevenueUSD: 50_000 + n * 1_000,
  occupancyRatePercentage: 60 + n,
  averageDailyRateUSD: 200 + n * 10,
  distanceMiles: n / 10,
  photo_urls: [`https://photos.example/${n}.jpg`],
});

export const COMMON = {
  _id: "an_buy_1",
  url: "https://reports.example/an_buy_1",
  currency: "USD",
  ratePerNightUSD: 250,
  occupancyRatePercentage: 72.5,
  bedrooms: 3,
  bathrooms: 2,
  commonSpaces: 1,
  accomodates: 8,
  fullAddress: "12 Main St, Austin TX",
  location: { type: "Point", coordinates: [-97.74, 30.27] },
  revenue: percentiles(48_000, 60_000, 72_000, 85_000, 61_000),
  adr: percentiles(210, 250, 290, 340, 255),
  occupancy: percentiles(0.6, 0.725, 0.8, 0.88, 0.71),
};

/** A buy analysis in the sandbox, fetched now, with two warnings (one a string, one an object). */
export const buyAnswer = answer({
  success: true,
  data: {
    ...COMMON,
    comparables: [comparable(1), comparable(2), comparable(3)],
    downPaymentPercentage: 20,
    mortgageLength: 30,
    yearsRemainingOnMortgage: 30,
    interestRatePercentage: 6,
    propertyTaxPercentage: 1,
    monthlyRevenueUSD: 5_000,
    monthlyExpensesUSD: 1_800,
    monthlyTaxesUSD: 375,
    yearOneRevenueUSD: 60_000,
    yearOneOperatingIncomeUSD: 38_400,
    yearOneMorgageAndTaxesUSD: 30_000,
    yearOneCashFlowUSD: 8_400,
    yearOneCashOnCashPercentage: 7.5,
    yearOneCapRatePercentage: 8.53,
    yearOneReturnOnInvestmentPercentage: 12.25,
    yearOnePrincipalPaydownUSD: 4_300,
    yearOneAppreciationUSD: 13_500,
    totalCashInvestment: 112_000,
    ltrPerMonthUSD: 2_400,
    ltrMonthlyExpensesPercentage: 35,
  },
  warnings: [
    "AI comparables skipped: fewer than 8 usable listing photos",
    { message: "AI expense estimates timed out; category defaults used" },
  ],
  relay: { cached: false, costUSD: 0.2, sandbox: true, fetchedAt: "2025-06-01T14:03:00.000Z", operation: "buy" },
});

/** A live arbitrage analysis from the relay's cache, without warnings. */
export const arbAnswer = answer({
  success: true,
  data: {
    ...COMMON,
    _id: "an_arb_1",
    url: "https://reports.example/an_arb_1",
    comparables: [comparable(1)],
    monthlyRentUSD: 2_500,
    yearOneRentUSD: 30_000,
    monthlyRevenueUSD: 5_000,
    monthlyExpensesUSD: 1_500,
    yearOneRevenueUSD: 60_000,
    yearOneOperatingIncomeUSD: 42_000,
    yearOneCashFlowUSD: 12_000,
    yearOneCashOnCashPercentage: 60,
    totalCashInvestment: 20_000,
  },
  relay: { cached: true, costUSD: 0, sandbox: false, fetchedAt: "2025-05-30T08:00:00.000Z", operation: "arb" },
});

/** A co-host analysis, recalculated by enhance: the relay says "enhance", not which strategy. */
export const cohostAnswer = answer({
  success: true,
  data: {
    ...COMMON,
    _id: "an_cohost_1",
    comparables: [],
    yearOneRevenueUSD: 60_000,
    yearOneCohostReturnUSD: 39_000,
    yearOneCohostCommissionUSD: 12_000,
  },
  relay: { cached: false, costUSD: 0.1, sandbox: false, fetchedAt: "2025-06-02T09:30:00.000Z", operation: "enhance" },
});

/** A buy answer the service left half empty: no ADR, occupancy or cash-flow figures, no comparables. */
export const sparseAnswer = answer({
  success: true,
  data: {
    _id: "an_sparse_1",
    fullAddress: "1 Nowhere Rd",
    revenue: { p50: 40_000 },
    yearOneCapRatePercentage: 4,
  },
  relay: { cached: false, costUSD: 0.2, sandbox: false, fetchedAt: "2025-06-03T00:00:00.000Z", operation: "buy" },
});

/** enhance whose requested AI functions all failed: warnings only, no analysis. */
export const warningsOnlyAnswer = answer({
  success: true,
  warnings: ["AI comparables: US properties only", "AI expense estimates failed"],
  relay: { cached: false, costUSD: 0, sandbox: false, fetchedAt: "2025-06-04T10:00:00.000Z", operation: "enhance" },
});
