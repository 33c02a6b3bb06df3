import { Sandbox } from "../../src/sandbox/sandbox-server";
import { BODIES, CREATE_OPS, CreateOp, create, expectNear, makeSandbox, mean, percentileInc } from "./helpers";

/**
 * The sandbox's answers are internally consistent: every derived field is recomputed here from the
 * request and the answer's own revenue and expenses, with the formulas written out
 * (docs/service/observed-behaviour.md, "The financial model"), never by calling the model under test.
 */

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox();
});
afterAll(() => sandbox.app.close());

const DAYS = 365;
/** Austin's long-term rent a month as a share of the price, from the sandbox's market table. */
const AUSTIN_LTR_YIELD = 0.0062;

/** Furnishing as report pages show it: 6,250 for one bedroom, 8,250 for two, 2,000 a bedroom more; a studio as one. */
const furnishing = (bedrooms: number) => 6_250 + 2_000 * (Math.max(1, bedrooms) - 1);

/** Standard annuity payment. */
function annuity(principal: number, ratePct: number, years: number): number {
  const n = years * 12;
  const r = ratePct / 100 / 12;
  if (principal <= 0 || n <= 0) return 0;
  return r === 0 ? principal / n : (principal * r) / (1 - (1 + r) ** -n);
}

/** Principal repaid in months (from, to], simulated month by month. */
function paydown(principal: number, ratePct: number, years: number, from: number, to: number): number {
  const payment = annuity(principal, ratePct, years);
  const r = ratePct / 100 / 12;
  let balance = principal;
  let repaid = 0;
  for (let m = 1; m <= to; m++) {
    const principalPart = payment - balance * r;
    if (m > from) repaid += principalPart;
    balance -= principalPart;
  }
  return repaid;
}

/** Total operating expenses a year, from the answer's own per-category breakdown. */
function annualExpenses(data: any): number {
  return Object.values(data.operatingExpensesUSD as Record<string, number>).reduce((a, b) => a + b, 0);
}

/** Checks shared by every strategy: percentiles, quartiles, occupancy forms, headline revenue. */
function expectCommonConsistency(data: any, order: "nearest first" | "by likeness" = "nearest first"): void {
  const comps = data.comparables as any[];
  expect(comps.length).toBeGreaterThan(0);
  expect(comps.length).toBeLessThanOrEqual(50);

  const series = {
    revenue: comps.map((c) => c.annualRevenueUSD as number),
    adr: comps.map((c) => c.averageDailyRateUSD as number),
    occupancy: comps.map((c) => (c.occupancyRatePercentage as number) / 100),
  };
  for (const metric of ["revenue", "adr", "occupancy"] as const) {
    const tolerance = metric === "occupancy" ? 0.00005 + 1e-9 : 0.005 + 1e-9;
    const values = series[metric];
    expectNear(data[metric].p25, percentileInc(values, 0.25), tolerance, `${metric}.p25`);
    expectNear(data[metric].p50, percentileInc(values, 0.5), tolerance, `${metric}.p50`);
    expectNear(data[metric].p75, percentileInc(values, 0.75), tolerance, `${metric}.p75`);
    expectNear(data[metric].p90, percentileInc(values, 0.9), tolerance, `${metric}.p90`);
    expectNear(data[metric].avg, mean(values), tolerance, `${metric}.avg`);
    expect(data[metric].p25).toBeLessThanOrEqual(data[metric].p50);
    expect(data[metric].p50).toBeLessThanOrEqual(data[metric].p75);
    expect(data[metric].p75).toBeLessThanOrEqual(data[metric].p90);
  }

  // `occupancy` holds fractions; `quartiles` and `occupancyRatePercentage` hold percents of the same values.
  for (const k of ["p25", "p50", "p75", "p90"]) expect(data.occupancy[k]).toBeLessThanOrEqual(1);
  const quartileOf = {
    p25: "25th_percentile",
    p50: "50th_percentile",
    p75: "75th_percentile",
    p90: "90th_percentile",
  } as const;
  for (const [k, name] of Object.entries(quartileOf)) {
    const q = data.quartiles[name];
    expect(q.average_daily_rate).toBe(data.adr[k]);
    expect(q.revenue).toBe(data.revenue[k]);
    expectNear(q.occupancy_rate, data.occupancy[k] * 100, 0.005 + 1e-9, `quartiles.${name}.occupancy_rate`);
    expect(q.occupancy_rate).toBeGreaterThan(1);
  }
  expectNear(data.occupancyRatePercentage, data.occupancy.p50 * 100, 0.005 + 1e-9, "occupancyRatePercentage");

  // The headline: the median nightly rate at the median occupancy, over a year.
  expect(data.ratePerNightUSD).toBe(data.adr.p50);
  expectNear(
    data.yearOneRevenueUSD,
    ((data.ratePerNightUSD * data.occupancyRatePercentage) / 100) * DAYS,
    0.01,
    "yearOneRevenueUSD",
  );

  // Each comparable's revenue is its own rate × occupancy × 365 (occupancy shown to 2 decimals of a percent).
  for (const c of comps) {
    expectNear(
      c.annualRevenueUSD,
      ((c.averageDailyRateUSD * c.occupancyRatePercentage) / 100) * DAYS,
      c.averageDailyRateUSD * 0.00005 * DAYS + 0.01,
      "comparable revenue",
    );
    expect(c.occupancyRatePercentage).toBeGreaterThanOrEqual(18);
    expect(c.occupancyRatePercentage).toBeLessThanOrEqual(93);
  }
  // Standard comparables come nearest first; AI ones in the order of their likeness to the subject.
  if (order === "nearest first") {
    const distances = comps.map((c) => c.distanceMiles as number);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
  }
}

/** The operating-expense categories for a request without AI expense estimates. */
function expectDefaultExpenses(data: any, strategy: CreateOp, bedrooms: number, price: number): void {
  const revenue = data.yearOneRevenueUSD as number;
  const owns = strategy === "buy" || strategy === "owned";
  const expected: Record<string, number> = {
    utilities: (150 + 45 * bedrooms) * 12,
    internetAndStreaming: 80 * 12,
    supplies: revenue * 0.04,
    maintenance: revenue * 0.05,
    platformFees: revenue * 0.03,
    insurance: owns ? price * 0.0045 : 360,
    software: 40 * 12,
  };
  expect(Object.keys(data.operatingExpensesUSD).sort()).toEqual(Object.keys(expected).sort());
  for (const [category, value] of Object.entries(expected))
    expectNear(data.operatingExpensesUSD[category], value, 0.005 + 1e-9, category);
}

/** Buy and owned: every field from the terms, the revenue and the expenses. */
function expectMortgageModel(
  data: any,
  terms: {
    price: number;
    downPct: number;
    ratePct: number;
    years: number;
    remaining: number;
    bedrooms: number;
    ltr: number;
  },
): void {
  const { price, downPct, ratePct, years, remaining } = terms;
  const loan = price * (1 - downPct / 100);
  const payment = annuity(loan, ratePct, years);
  const monthsThisYear = Math.min(12, Math.round(remaining * 12));
  const monthsPaid = Math.round((years - remaining) * 12);
  const taxes = price * 0.01;
  const revenue = data.yearOneRevenueUSD as number;
  const expenses = annualExpenses(data);
  const operatingIncome = revenue - expenses;
  const mortgageAndTaxes = payment * monthsThisYear + taxes;
  const cashFlow = operatingIncome - mortgageAndTaxes;
  const cash = price * (downPct / 100) + price * 0.03 + furnishing(terms.bedrooms);
  const repaid = paydown(loan, ratePct, years, monthsPaid, monthsPaid + monthsThisYear);
  const appreciation = price * 0.03;

  expect(data).toMatchObject({
    downPaymentPercentage: downPct,
    interestRatePercentage: ratePct,
    mortgageLength: years,
    yearsRemainingOnMortgage: remaining,
    propertyTaxPercentage: 1,
    ltrMonthlyExpensesPercentage: 12,
  });
  expectNear(data.monthlyRevenueUSD, revenue / 12, 0.005 + 1e-9, "monthlyRevenueUSD");
  expectNear(data.monthlyExpensesUSD, expenses / 12, 0.01, "monthlyExpensesUSD");
  expectNear(data.monthlyTaxesUSD, taxes / 12, 0.005 + 1e-9, "monthlyTaxesUSD");
  expectNear(data.yearOneOperatingIncomeUSD, operatingIncome, 0.05, "yearOneOperatingIncomeUSD");
  expectNear(data.yearOneMorgageAndTaxesUSD, mortgageAndTaxes, 0.01, "yearOneMorgageAndTaxesUSD");
  expectNear(data.yearOneCashFlowUSD, cashFlow, 0.05, "yearOneCashFlowUSD");
  // The answer's own figures agree with each other to the cent.
  expectNear(
    data.yearOneCashFlowUSD,
    data.yearOneOperatingIncomeUSD - data.yearOneMorgageAndTaxesUSD,
    0.02,
    "cash flow from the answer's figures",
  );
  expectNear(data.yearOneCapRatePercentage, (operatingIncome / price) * 100, 0.01, "yearOneCapRatePercentage");
  expectNear(data.totalCashInvestment, cash, 0.005, "totalCashInvestment");
  expectNear(data.yearOneCashOnCashPercentage, (cashFlow / cash) * 100, 0.01, "yearOneCashOnCashPercentage");
  expectNear(data.yearOnePrincipalPaydownUSD, repaid, 0.01, "yearOnePrincipalPaydownUSD");
  expectNear(data.yearOneAppreciationUSD, appreciation, 0.005, "yearOneAppreciationUSD");
  expectNear(
    data.yearOneReturnOnInvestmentPercentage,
    ((cashFlow + repaid + appreciation) / cash) * 100,
    0.01,
    "yearOneReturnOnInvestmentPercentage",
  );
  expectNear(data.ltrPerMonthUSD, terms.ltr, 0.005 + 1e-9, "ltrPerMonthUSD");
}

describe.each(CREATE_OPS)("%s: percentiles, quartiles and occupancy agree with the comparables", (op) => {
  test("for an address", async () => {
    expectCommonConsistency(await create(sandbox, op));
  });

  test("for coordinates outside any known market", async () => {
    expectCommonConsistency(await create(sandbox, op, { fullAddress: undefined, lat: 44.5, lng: -103.2 }));
  });

  test("with AI comparables, over the comparables it selected", async () => {
    const data = await create(sandbox, op, { addAIComps: true });
    expect(data.aiComparablesApplied).toBe(true);
    expectCommonConsistency(data, "by likeness");
  });
});

describe("never more than 50 comparables", () => {
  const places = [
    "1 Ocean Dr, Miami Beach, FL",
    "22 Broadway, Nashville, TN",
    "5 Peak Rd, Breckenridge, CO",
    "9 Elm St, Springfield, IL",
    "77 Rua Augusta, Lisboa, Portugal",
    "3 Sunset Blvd, Los Angeles, CA",
    "18 Harbour St, Sydney, Australia",
    "400 Nowhere Lane",
  ];
  test.each(places)("%s", async (fullAddress) => {
    for (const bedrooms of [0, 2, 5]) {
      const data = await create(sandbox, "cohost", { fullAddress, bedrooms, accomodates: Math.max(1, bedrooms * 2) });
      expect(data.comparables.length).toBeGreaterThanOrEqual(1);
      expect(data.comparables.length).toBeLessThanOrEqual(50);
    }
  });
});

describe("buy", () => {
  test("defaults: 20 % down, 6 %, 30 years; tax 1 %; closing 3 %; furnishing for 2 bedrooms 8,250", async () => {
    const data = await create(sandbox, "buy");
    expect(data.market).toBe("Austin, TX");
    expectDefaultExpenses(data, "buy", 2, 450_000);
    expectMortgageModel(data, {
      price: 450_000,
      downPct: 20,
      ratePct: 6,
      years: 30,
      remaining: 30,
      bedrooms: 2,
      ltr: 450_000 * AUSTIN_LTR_YIELD,
    });
    expect(data.totalCashInvestment).toBe(90_000 + 13_500 + 8_250);
    // 360,000 at 6 % over 30 years is 2,158.38 a month; tax 4,500 a year.
    expectNear(data.yearOneMorgageAndTaxesUSD, 12 * 2_158.3819 + 4_500, 0.01, "mortgage & taxes");
    expect(data.monthlyTaxesUSD).toBe(375);
  });

  test("a given interest rate replaces 6 %", async () => {
    const data = await create(sandbox, "buy", { interestRatePercentage: 7.5 });
    expectMortgageModel(data, {
      price: 450_000,
      downPct: 20,
      ratePct: 7.5,
      years: 30,
      remaining: 30,
      bedrooms: 2,
      ltr: 450_000 * AUSTIN_LTR_YIELD,
    });
  });

  test("a zero interest rate repays the loan in equal parts", async () => {
    const data = await create(sandbox, "buy", { interestRatePercentage: 0 });
    expect(data.yearOnePrincipalPaydownUSD).toBe(12_000); // 360,000 / 360 × 12
    expectNear(data.yearOneMorgageAndTaxesUSD, 12_000 + 4_500, 0.005, "mortgage & taxes");
  });

  test("a given long-term rent is used as the long-term rent", async () => {
    const data = await create(sandbox, "buy", { monthlyRentUSD: 2_950 });
    expect(data.ltrPerMonthUSD).toBe(2_950);
  });

  test("one bedroom is furnished for 6,250", async () => {
    const data = await create(sandbox, "buy", { bedrooms: 1, accomodates: 2 });
    expect(data.totalCashInvestment).toBe(90_000 + 13_500 + 6_250);
  });

  test("revenue does not depend on the price; the financials do", async () => {
    const cheap = await create(sandbox, "buy", { purchasePriceUSD: 300_000 });
    const dear = await create(sandbox, "buy", { purchasePriceUSD: 900_000 });
    expect(dear.yearOneRevenueUSD).toBe(cheap.yearOneRevenueUSD);
    expect(dear.yearOneCashFlowUSD).toBeLessThan(cheap.yearOneCashFlowUSD);
    expectMortgageModel(dear, {
      price: 900_000,
      downPct: 20,
      ratePct: 6,
      years: 30,
      remaining: 30,
      bedrooms: 2,
      ltr: 900_000 * AUSTIN_LTR_YIELD,
    });
  });
});

describe("owned", () => {
  test("the given terms: 25 % down, 4 %, 30 years with 20 left (months 121–132 this year)", async () => {
    const data = await create(sandbox, "owned");
    expectDefaultExpenses(data, "owned", 3, 500_000);
    expectMortgageModel(data, {
      price: 500_000,
      downPct: 25,
      ratePct: 4,
      years: 30,
      remaining: 20,
      bedrooms: 3,
      ltr: 500_000 * AUSTIN_LTR_YIELD,
    });
  });

  test("with half a year left, six payments are made", async () => {
    const data = await create(sandbox, "owned", { mortgageLength: 15, yearsRemainingOnMortgage: 0.5 });
    expectMortgageModel(data, {
      price: 500_000,
      downPct: 25,
      ratePct: 4,
      years: 15,
      remaining: 0.5,
      bedrooms: 3,
      ltr: 500_000 * AUSTIN_LTR_YIELD,
    });
    expectNear(data.yearOneMorgageAndTaxesUSD, 6 * annuity(375_000, 4, 15) + 5_000, 0.01, "six payments and the tax");
  });

  test("owned outright: no mortgage, only the tax", async () => {
    const data = await create(sandbox, "owned", {
      mortgageLength: 0,
      yearsRemainingOnMortgage: 0,
      downPaymentPercentage: 0,
    });
    expect(data.yearOneMorgageAndTaxesUSD).toBe(5_000);
    expect(data.yearOnePrincipalPaydownUSD).toBe(0);
    expectNear(data.yearOneCashFlowUSD, data.yearOneOperatingIncomeUSD - 5_000, 0.01, "cash flow");
  });

  test("the same terms as buy's defaults give buy's numbers", async () => {
    const buy = await create(sandbox, "buy", { bedrooms: 3, accomodates: 8, purchasePriceUSD: 500_000 });
    const owned = await create(sandbox, "owned", {
      downPaymentPercentage: 20,
      interestRatePercentage: 6,
      mortgageLength: 30,
      yearsRemainingOnMortgage: 30,
    });
    for (const field of [
      "yearOneRevenueUSD",
      "yearOneMorgageAndTaxesUSD",
      "yearOneCashFlowUSD",
      "yearOneCapRatePercentage",
      "totalCashInvestment",
      "yearOnePrincipalPaydownUSD",
    ]) {
      expect(`${field}: ${owned[field]}`).toBe(`${field}: ${buy[field]}`);
    }
  });
});

describe("arb", () => {
  test("revenue − rent − operating expenses; cash = one month's deposit + furnishing", async () => {
    const data = await create(sandbox, "arb");
    expectDefaultExpenses(data, "arb", 2, 0);
    const revenue = data.yearOneRevenueUSD;
    const expenses = annualExpenses(data);
    const operatingIncome = revenue - expenses;
    const cashFlow = operatingIncome - 12 * 2_500;
    const cash = 2_500 + furnishing(2);
    expect(data.monthlyRentUSD).toBe(2_500);
    expect(data.yearOneRentUSD).toBe(30_000);
    expectNear(data.monthlyRevenueUSD, revenue / 12, 0.005 + 1e-9, "monthlyRevenueUSD");
    expectNear(data.monthlyExpensesUSD, expenses / 12, 0.01, "monthlyExpensesUSD");
    expectNear(data.yearOneOperatingIncomeUSD, operatingIncome, 0.05, "yearOneOperatingIncomeUSD");
    expectNear(data.yearOneCashFlowUSD, cashFlow, 0.05, "yearOneCashFlowUSD");
    expect(data.totalCashInvestment).toBe(10_750);
    expectNear(data.totalCashInvestment, cash, 0, "totalCashInvestment");
    expectNear(data.yearOneCashOnCashPercentage, (cashFlow / cash) * 100, 0.01, "yearOneCashOnCashPercentage");
  });

  test("a higher rent lowers the cash flow by exactly the extra rent", async () => {
    const low = await create(sandbox, "arb", { monthlyRentUSD: 2_000 });
    const high = await create(sandbox, "arb", { monthlyRentUSD: 3_000 });
    expectNear(low.yearOneCashFlowUSD - high.yearOneCashFlowUSD, 12_000, 0.02, "difference in cash flow");
    expect(high.totalCashInvestment - low.totalCashInvestment).toBe(1_000);
  });
});

describe("cohost", () => {
  test("commission is 20 % of revenue by default; the host keeps revenue − commission − expenses", async () => {
    const data = await create(sandbox, "cohost");
    expectDefaultExpenses(data, "cohost", 1, 0);
    const revenue = data.yearOneRevenueUSD;
    expectNear(data.yearOneCohostCommissionUSD, revenue * 0.2, 0.005 + 1e-9, "commission");
    expectNear(data.yearOneCohostReturnUSD, revenue - revenue * 0.2 - annualExpenses(data), 0.05, "host return");
  });

  test("a given commission percentage is used", async () => {
    const data = await create(sandbox, "cohost", { cohostCommissionPercentage: 35 });
    const revenue = data.yearOneRevenueUSD;
    expectNear(data.yearOneCohostCommissionUSD, revenue * 0.35, 0.005 + 1e-9, "commission");
    expectNear(data.yearOneCohostReturnUSD, revenue * 0.65 - annualExpenses(data), 0.05, "host return");
  });
});

describe("AI functions change the numbers the way they say", () => {
  test("AI comparables keep 5 to 15 listings, closest in bedrooms first", async () => {
    const plain = await create(sandbox, "buy");
    const ai = await create(sandbox, "buy", { addAIComps: true });
    expect(ai.comparables.length).toBeGreaterThanOrEqual(5);
    expect(ai.comparables.length).toBeLessThanOrEqual(15);
    const ids = new Set(plain.comparables.map((c: any) => c.platformId));
    for (const c of ai.comparables) expect(ids.has(c.platformId)).toBe(true);
    const sameBeds = plain.comparables.filter((c: any) => c.bedrooms === BODIES.buy.bedrooms).length;
    if (sameBeds >= 5) for (const c of ai.comparables) expect(c.bedrooms).toBe(BODIES.buy.bedrooms);
  });

  test("AI expense estimates re-weigh each category within −18 % and +12 %, and the financials follow", async () => {
    const plain = await create(sandbox, "buy");
    const ai = await create(sandbox, "buy", { addAIExpenseEstimates: true });
    expect(ai.aiExpenseEstimatesApplied).toBe(true);
    expect(ai.yearOneRevenueUSD).toBe(plain.yearOneRevenueUSD);
    for (const [category, value] of Object.entries(plain.operatingExpensesUSD as Record<string, number>)) {
      const ratio = ai.operatingExpensesUSD[category] / value;
      expect(ratio).toBeGreaterThanOrEqual(0.82 - 1e-4);
      expect(ratio).toBeLessThanOrEqual(1.12 + 1e-4);
    }
    expect(ai.operatingExpensesUSD).not.toEqual(plain.operatingExpensesUSD);
    expectMortgageModel(ai, {
      price: 450_000,
      downPct: 20,
      ratePct: 6,
      years: 30,
      remaining: 30,
      bedrooms: 2,
      ltr: 450_000 * AUSTIN_LTR_YIELD,
    });
  });
});
