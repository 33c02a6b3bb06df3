/**
 * The live service's answer as integrators type it (observed-behaviour.md, "The live answer"), and
 * each drifted shape issue 37 lists and worse, with the cells each must produce: the right figure,
 * or a blank and a warning saying why. Figures are round and consistent with the financial model
 * (cap rate = operating income ÷ price; cash-on-cash = cash flow ÷ cash invested), so a figure read
 * 100× off cannot pass.
 */

export const PRICE = 450_000;

const MONTHS = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"];
/** A beach market's year: low in winter, high in July. */
const MONTH_OCCUPANCY = [38, 42, 50, 55, 62, 74, 82, 80, 64, 52, 44, 40];
const MONTH_ADR = [170, 175, 190, 205, 225, 260, 290, 285, 230, 200, 180, 175];

/** revenueData keyed "2026-MM", sent out of order (the keys' order is not promised). */
export function revenueData(): Record<string, unknown> {
  const order = [6, 0, 11, 3, 9, 1, 7, 4, 10, 2, 8, 5];
  return Object.fromEntries(
    order.map((i) => [
      `2026-${MONTHS[i]}`,
      {
        average_daily_rate: MONTH_ADR[i],
        average_occupancy_rate: MONTH_OCCUPANCY[i],
        average_revenue: Math.round(((MONTH_ADR[i] as number) * (MONTH_OCCUPANCY[i] as number) * 30.4) / 100),
      },
    ]),
  );
}
export const MONTHLY_EXPECTED = MONTHS.map((m, i) => ({
  month: `2026-${m}`,
  ratePerNightUSD: MONTH_ADR[i],
  occupancy: (MONTH_OCCUPANCY[i] as number) / 100,
}));

/** A comparable under the live service's names. */
export function liveComparable(n: number): Record<string, unknown> {
  return {
    listing_id: 40_000_000 + n,
    name: `Beach house ${n}`,
    thumbnail_url: `https://img.example/${n}.jpg`,
    latitude: 30.39 + n / 1000,
    longitude: -86.49 - n / 1000,
    room_type: "Entire home/apt",
    property_type: "House",
    bedrooms: 3,
    beds: 4,
    bathrooms: 2,
    accommodates: 8,
    superhost: n % 2 === 0,
    cleaning_fee: 150 + n,
    review_scores_rating: 4.8,
    reviews: 100 + n,
    minimum_nights: 2,
    annual_revenue_ltm: 40_000 + 1_000 * n,
    average_daily_rate_ltm: 200 + n,
    average_occupancy_rate_ltm: 50 + n,
    distance_meters: 1609.344 * (n / 10),
    metrics: { ttm: { revenue: 40_000 + 1_000 * n, adr: 200 + n, occupancy: 0.5 }, l90d: {} },
  };
}

/** The live answer's data for a buy of PRICE: no revenue/adr/occupancy objects; quartiles with `average`. */
export function liveData(id: string): Record<string, unknown> {
  return {
    _id: id,
    url: `https://atlas.example/report/${id}`,
    currency: "USD",
    ratePerNightUSD: 215,
    occupancyRatePercentage: 55,
    bedrooms: 3,
    bathrooms: 2,
    accomodates: 8,
    fullAddress: "1 Beach Rd, Destin FL",
    county: "Okaloosa",
    marketId: "mkt_destin",
    location: { type: "Point", coordinates: [-86.49, 30.39] },
    quartiles: {
      "25th_percentile": { average_daily_rate: 180, occupancy_rate: 45, revenue: 29_565 },
      "50th_percentile": { average_daily_rate: 215, occupancy_rate: 55, revenue: 43_161.25 },
      "75th_percentile": { average_daily_rate: 250, occupancy_rate: 66, revenue: 60_225 },
      "90th_percentile": { average_daily_rate: 300, occupancy_rate: 75, revenue: 82_125 },
      average: { average_daily_rate: 220, occupancy_rate: 56, revenue: 45_000 },
    },
    revenueData: revenueData(),
    comparables: [1, 2, 3].map(liveComparable),
    downPaymentPercentage: 20,
    mortgageLength: 30,
    yearsRemainingOnMortgage: 30,
    interestRatePercentage: 6,
    propertyTaxPercentage: 1,
    monthlyRevenueUSD: 3_596.77,
    monthlyExpensesUSD: 379.27,
    monthlyTaxesUSD: 375,
    yearOneRevenueUSD: 43_161.25,
    yearOneOperatingIncomeUSD: 38_610,
    yearOneMorgageAndTaxesUSD: 36_198,
    yearOneCashFlowUSD: 2_412,
    yearOneCashOnCashPercentage: 2.15,
    yearOneCapRatePercentage: 8.58,
    yearOneReturnOnInvestmentPercentage: 19.1,
    yearOnePrincipalPaydownUSD: 5_526,
    yearOneAppreciationUSD: 13_500,
    totalCashInvestment: 112_250,
    ltrPerMonthUSD: 2_800,
    ltrMonthlyExpensesPercentage: 12,
  };
}

/** The screening fields the drift suite reads, and the cell each holds for the live answer. */
export const FIELDS = [
  "revenue.p50",
  "adr.p50",
  "occupancy.p50",
  "occupancy.p90",
  "occupancyRatePercentage",
  "yearOneCashFlowUSD",
  "yearOneCashOnCashPercentage",
  "yearOneCapRatePercentage",
  "interestRatePercentage",
  "downPaymentPercentage",
  "_id",
] as const;
export type Field = (typeof FIELDS)[number];

export const RIGHT: Record<Field, number | string> = {
  "revenue.p50": 43_161.25,
  "adr.p50": 215,
  "occupancy.p50": 0.55,
  "occupancy.p90": 0.75,
  occupancyRatePercentage: 0.55,
  yearOneCashFlowUSD: 2_412,
  yearOneCashOnCashPercentage: 0.0215,
  yearOneCapRatePercentage: 0.0858,
  interestRatePercentage: 0.06,
  downPaymentPercentage: 0.2,
  _id: "",
};

export interface Shape {
  /** What the stand-in answers for an analysis id. */
  answer(id: string): { status: number; body: unknown };
  /** An analysis: the cells that differ from RIGHT ("" = blank), and what the warnings must say. */
  expect:
    | {
        kind: "analysis";
        blank?: readonly Field[];
        cells?: Partial<Record<Field, number | string>>;
        warnings: RegExp[];
        /** Number formats the cells must carry (money in the answer's currency). */
        formats?: Partial<Record<Field, RegExp>>;
      }
    | { kind: "error"; code: string; message: RegExp };
}

const ok = (data: unknown, envelope: Record<string, unknown> = {}) => ({
  status: 200,
  body: { success: true, data, ...envelope },
});
const live = (id: string, patch: Record<string, unknown> = {}) => ({ ...liveData(id), ...patch });

/** Every shape tried, by name (the stand-in reads the name from the request's address). */
export const SHAPES: Record<string, Shape> = {
  live: {
    answer: (id) => ok(live(id)),
    expect: {
      kind: "analysis",
      warnings: [/revenue was missing: p25 from quartiles/, /3 comparables used older field names/],
    },
  },
  "occupancy p90 of 1.05 among fractions": {
    answer: (id) => ok(live(id, { occupancy: { p25: 0.45, p50: 0.55, p75: 0.66, p90: 1.05, avg: 0.56 } })),
    expect: {
      kind: "analysis",
      blank: ["occupancy.p90"],
      warnings: [/occupancy p90 \(1\.05\) fits neither as a fraction nor as a percent/],
    },
  },
  "occupancy in percent with a p90 of 150": {
    answer: (id) => ok(live(id, { occupancy: { p25: 45, p50: 55, p75: 66, p90: 150 } })),
    expect: {
      kind: "analysis",
      blank: ["occupancy.p90"],
      warnings: [/occupancy p90 \(150\) is not an occupancy/, /occupancy given in percent, read as p25 45 %, p50 55 %/],
    },
  },
  "quartiles with an occupancy_rate of 150": {
    answer: (id) => {
      const data = live(id);
      const quartiles = data.quartiles as Record<string, Record<string, number>>;
      quartiles["90th_percentile"] = { ...quartiles["90th_percentile"], occupancy_rate: 150 };
      return ok(data);
    },
    expect: {
      kind: "analysis",
      blank: ["occupancy.p90"],
      warnings: [/quartiles' occupancy_rate p90 \(150\) is not an occupancy/],
    },
  },
  "occupancy mixing a percent among fractions": {
    answer: (id) => ok(live(id, { occupancy: { p25: 0.45, p50: 55, p75: 0.66, p90: 0.75 } })),
    expect: { kind: "analysis", warnings: [/occupancy given in percent, read as p50 55 %/] },
  },
  "percent fields as fractions": {
    answer: (id) =>
      ok(
        live(id, {
          occupancyRatePercentage: 0.55,
          yearOneCapRatePercentage: 0.0858,
          yearOneCashOnCashPercentage: 0.0215,
          interestRatePercentage: 0.06,
          downPaymentPercentage: 0.2,
          propertyTaxPercentage: 0.01,
        }),
      ),
    expect: {
      kind: "analysis",
      warnings: [
        /occupancy given as a fraction \(0\.55\), read as 55 %/,
        /cap rate given as a fraction \(0\.0858\), read as 8\.58 %/,
        /interestRatePercentage given as a fraction \(0\.06\), read as 6 %/,
        /downPaymentPercentage given as a fraction \(0\.2\), read as 20 %/,
      ],
    },
  },
  "numbers as text, one of them not a number": {
    answer: (id) =>
      ok(
        live(id, {
          ratePerNightUSD: "215",
          occupancyRatePercentage: "55",
          yearOneCapRatePercentage: "8.58",
          interestRatePercentage: "6",
          yearOneCashFlowUSD: "n/a",
        }),
      ),
    expect: {
      kind: "analysis",
      blank: ["yearOneCashFlowUSD"],
      warnings: [/yearOneCashFlowUSD \("n\/a"\) is not a number; left blank/],
    },
  },
  "no quartiles and no percentile objects": {
    answer: (id) => ok(live(id, { quartiles: undefined })),
    expect: {
      kind: "analysis",
      // From the three comparables: revenue 41,000 / 42,000 / 43,000; occupancy 51 / 52 / 53 %.
      cells: { "revenue.p50": 42_000, "adr.p50": 202, "occupancy.p50": 0.52, "occupancy.p90": 0.528 },
      warnings: [/revenue was missing: .*p50 from the comparables/],
    },
  },
  "empty data": {
    answer: () => ok({}),
    // Quoted when it comes, and when asked again (the billed, unusable answer kept, not bought again).
    expect: {
      kind: "error",
      code: "STR_UPSTREAM_UNUSABLE",
      message: /(with no analysis|could not be used) \(\{"success":true,"data":\{\}\}\)/,
    },
  },
  "data that is not an analysis": {
    answer: () => ok({ status: "queued", jobId: "j1" }),
    expect: {
      kind: "error",
      code: "STR_UPSTREAM_UNUSABLE",
      message: /(with no analysis|could not be used) \(.*"status":"queued"/,
    },
  },
  "analysis wrapped in data.analysis": {
    answer: (id) => ok({ analysis: live(id) }),
    expect: { kind: "analysis", warnings: [/the analysis came wrapped in data\.analysis/] },
  },
  "success false without data": {
    answer: () => ({ status: 200, body: { success: false, error: "Address could not be geocoded" } }),
    expect: {
      kind: "error",
      code: "STR_UPSTREAM_FAILED",
      message: /success: false: Address could not be geocoded\. Failed requests are not billed/,
    },
  },
  "success false with data": {
    answer: (id) => ({ status: 200, body: { success: false, error: "Comparables partially loaded", data: live(id) } }),
    expect: {
      kind: "analysis",
      warnings: [/SERVICE ERROR: the service answered success: false \("Comparables partially loaded"\)/],
    },
  },
  "warnings as one string": {
    answer: (id) => ok(live(id), { warnings: "AI comparables skipped: too few photos" }),
    expect: { kind: "analysis", warnings: [/AI comparables skipped: too few photos/] },
  },
  "a warning object under `warning`": {
    answer: (id) => ok(live(id), { warning: { code: "AI_TIMEOUT", message: "AI expense estimates timed out" } }),
    expect: { kind: "analysis", warnings: [/AI expense estimates timed out/] },
  },
  "warnings as a list of objects": {
    answer: (id) => ok(live(id), { warnings: [{ message: "first" }, { detail: "second" }] }),
    expect: { kind: "analysis", warnings: [/first/, /second/] },
  },
  "currency as a symbol": {
    answer: (id) => ok(live(id, { currency: "€" })),
    expect: { kind: "analysis", warnings: [], formats: { yearOneCashFlowUSD: /^\[\$EUR\] #,##0/ } },
  },
  "sixty comparables": {
    answer: (id) => ok(live(id, { comparables: Array.from({ length: 60 }, (_, i) => liveComparable(i + 1)) })),
    expect: { kind: "analysis", warnings: [/the service sent 60 comparables; the spec says at most 50/] },
  },
};
