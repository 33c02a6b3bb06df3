import { Analysis, STRATEGY_FIELDS, Strategy } from "../../src/contract";
import { INVESTOR_METRICS, impliedPrice, whatIf } from "../../src/model";
import { sandboxAnalyses } from "../support/sandbox-analysis";

const { analysis, close } = sandboxAnalyses("sk_test_whatif_0123");

const CASES: [Strategy, Record<string, unknown>][] = [
  [
    "buy",
    { fullAddress: "12 Main St, Austin TX", purchasePriceUSD: 450000, bedrooms: 3, bathrooms: 2, accomodates: 8 },
  ],
  [
    "buy",
    {
      fullAddress: "9 Ocean Dr, Miami FL",
      purchasePriceUSD: 612345,
      bedrooms: 2,
      bathrooms: 2,
      accomodates: 6,
      interestRatePercentage: 7.25,
      addAIExpenseEstimates: true,
    },
  ],
  [
    "owned",
    {
      fullAddress: "4 Ridge Rd, Asheville NC",
      purchasePriceUSD: 380000,
      downPaymentPercentage: 25,
      interestRatePercentage: 3.5,
      mortgageLength: 30,
      yearsRemainingOnMortgage: 22,
      bedrooms: 3,
      bathrooms: 2,
      accomodates: 6,
    },
  ],
  [
    "owned",
    {
      fullAddress: "8 Pine Ln, Denver CO",
      purchasePriceUSD: 505000,
      downPaymentPercentage: 0,
      interestRatePercentage: 0,
      mortgageLength: 15,
      yearsRemainingOnMortgage: 4.5,
      bedrooms: 4,
      bathrooms: 3,
      accomodates: 10,
    },
  ],
  ["arb", { fullAddress: "1 Broadway, Nashville TN", monthlyRentUSD: 2200, bedrooms: 2, bathrooms: 1, accomodates: 4 }],
  [
    "cohost",
    {
      fullAddress: "3 Lake Rd, Big Bear CA",
      bedrooms: 3,
      bathrooms: 2,
      accomodates: 8,
      cohostCommissionPercentage: 22,
    },
  ],
  ["cohost", { lat: 25.7617, lng: -80.1918, bedrooms: 1, bathrooms: 1, accomodates: 2 }],
];

afterAll(() => close());

describe("STR.WHATIF's model: at an analysis's own inputs it gives back the analysis's figures", () => {
  test.each(CASES)("%s %p", async (strategy, body) => {
    const a = await analysis(strategy, body);
    const result = whatIf(a, {});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    for (const field of STRATEGY_FIELDS[strategy]) {
      const given = a[field] as number;
      const computed = result.analysis[field] as number;
      expect(typeof given).toBe("number");
      // Money to the cent (a derived price can move taxes by a cent); percents to a hundredth.
      expect({
        field,
        diff: Math.abs(computed - given) <= (field.endsWith("USD") || field === "totalCashInvestment" ? 0.05 : 0.015),
      }).toEqual({ field, diff: true });
    }
  });

  test("the purchase price is read back from the taxes", async () => {
    expect(impliedPrice(await analysis("buy", CASES[1]![1]))).toBe(612345);
  });
});

describe("what-if changes recompute with the service's formulas", () => {
  let a: Analysis;
  beforeAll(async () => {
    a = await analysis("buy", CASES[0]![1]);
  });

  test("a higher interest rate raises the mortgage payment by the annuity formula and lowers cash flow by as much", () => {
    const r = whatIf(a, { interestRatePercentage: 7 });
    if (!r.ok) throw new Error(r.message);
    const loan = 450000 * 0.8;
    const i = 0.07 / 12;
    const payment = (loan * i) / (1 - (1 + i) ** -360);
    expect(r.analysis.yearOneMorgageAndTaxesUSD).toBeCloseTo(payment * 12 + 4500, 1);
    expect((a.yearOneCashFlowUSD as number) - (r.analysis.yearOneCashFlowUSD as number)).toBeCloseTo(
      (r.analysis.yearOneMorgageAndTaxesUSD as number) - (a.yearOneMorgageAndTaxesUSD as number),
      1,
    );
  });

  test("another price changes taxes, cash invested and cap rate; revenue and expenses stay", () => {
    const r = whatIf(a, { purchasePriceUSD: 400000, downPaymentPercentage: 25 });
    if (!r.ok) throw new Error(r.message);
    expect(r.analysis.monthlyTaxesUSD).toBeCloseTo((400000 * 0.01) / 12, 2);
    const furnishing = (a.totalCashInvestment as number) - 450000 * 0.23;
    expect(r.analysis.totalCashInvestment).toBeCloseTo(400000 * 0.28 + furnishing, 1);
    expect(r.analysis.yearOneCapRatePercentage).toBeCloseTo(
      ((a.yearOneOperatingIncomeUSD as number) / 400000) * 100,
      1,
    );
    expect(r.analysis.yearOneRevenueUSD).toBe(a.yearOneRevenueUSD);
  });

  test("a revenue scenario uses the comparables' percentile; occupancy and nightly rate rebuild revenue", () => {
    const bear = whatIf(a, { scenario: "p25" });
    if (!bear.ok) throw new Error(bear.message);
    expect(bear.analysis.yearOneRevenueUSD).toBeCloseTo(a.revenue.p25 as number, 2);
    const occ = whatIf(a, { occupancy: 0.5, ratePerNightUSD: 300 });
    if (!occ.ok) throw new Error(occ.message);
    expect(occ.analysis.yearOneRevenueUSD).toBeCloseTo(300 * 0.5 * 365, 2);
  });

  test("arbitrage rent and co-host commission", async () => {
    const arb = await analysis("arb", CASES[4]![1]);
    const r = whatIf(arb, { monthlyRentUSD: 2500 });
    if (!r.ok) throw new Error(r.message);
    expect((arb.yearOneCashFlowUSD as number) - (r.analysis.yearOneCashFlowUSD as number)).toBeCloseTo(300 * 12, 1);
    const co = await analysis("cohost", CASES[5]![1]);
    const c = whatIf(co, { cohostCommissionPercentage: 30 });
    if (!c.ok) throw new Error(c.message);
    expect(c.analysis.yearOneCohostCommissionUSD).toBeCloseTo((co.yearOneRevenueUSD as number) * 0.3, 1);
  });

  test("an analysis without what a what-if needs says what is missing", () => {
    expect(whatIf({ revenue: {}, adr: {}, occupancy: {}, comparables: [] } as Analysis)).toEqual({
      ok: false,
      message: expect.stringMatching(/none of the fields/),
    });
  });
});

describe("investor metrics the service does not return", () => {
  test("DSCR, break-even occupancy, gross yield, bear and bull cash flow from the analysis's own fields", async () => {
    const a = await analysis("buy", CASES[0]![1]);
    const income = a.yearOneOperatingIncomeUSD as number;
    const debt = a.yearOneMorgageAndTaxesUSD as number;
    expect(INVESTOR_METRICS.dscr(a)).toBeCloseTo(income / debt, 3);
    expect(INVESTOR_METRICS.breakEvenOccupancy(a)).toBeCloseTo(
      ((a.monthlyExpensesUSD as number) * 12 + debt) / ((a.ratePerNightUSD as number) * 365),
      3,
    );
    expect(INVESTOR_METRICS.grossYield(a)).toBeCloseTo((a.yearOneRevenueUSD as number) / 450000, 3);
    const cf = a.yearOneCashFlowUSD as number;
    expect(INVESTOR_METRICS.bearCashFlowUSD(a)).toBeCloseTo(
      cf + ((a.revenue.p25 as number) - (a.yearOneRevenueUSD as number)),
      0,
    );
    expect(INVESTOR_METRICS.bullCashFlowUSD(a)).toBeCloseTo(
      cf + ((a.revenue.p75 as number) - (a.yearOneRevenueUSD as number)),
      0,
    );
  });

  test("arbitrage break-even counts the rent; co-hosting has no DSCR or cash flow cases", async () => {
    const arb = await analysis("arb", CASES[4]![1]);
    expect(INVESTOR_METRICS.breakEvenOccupancy(arb)).toBeCloseTo(
      ((arb.monthlyExpensesUSD as number) * 12 + 2200 * 12) / ((arb.ratePerNightUSD as number) * 365),
      3,
    );
    expect(INVESTOR_METRICS.dscr(arb)).toBeUndefined();
    const co = await analysis("cohost", CASES[5]![1]);
    expect([INVESTOR_METRICS.dscr(co), INVESTOR_METRICS.bearCashFlowUSD(co), INVESTOR_METRICS.grossYield(co)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});
