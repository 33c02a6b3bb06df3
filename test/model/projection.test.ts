import { Analysis, Strategy } from "../../src/contract";
import { PROJECTION_DEFAULTS, irr, npv, projectHold, whatIf } from "../../src/model";
import { sandboxAnalyses } from "../support/sandbox-analysis";

const { analysis, close } = sandboxAnalyses("sk_test_projection_0123");
afterAll(() => close());

const BUY = {
  fullAddress: "12 Main St, Austin TX",
  purchasePriceUSD: 450000,
  bedrooms: 3,
  bathrooms: 2,
  accomodates: 8,
};
const OWNED = {
  fullAddress: "8 Pine Ln, Denver CO",
  purchasePriceUSD: 505000,
  downPaymentPercentage: 10,
  interestRatePercentage: 5,
  mortgageLength: 15,
  yearsRemainingOnMortgage: 4.5,
  bedrooms: 4,
  bathrooms: 3,
  accomodates: 10,
};

function project(a: Analysis, inputs: Parameters<typeof projectHold>[1]) {
  const r = projectHold(a, inputs);
  if (!r.ok) throw new Error(r.message);
  return r;
}

describe("irr and npv", () => {
  test("textbook flows", () => {
    expect(irr([-100, 110])).toBeCloseTo(0.1, 14);
    expect(irr([-1000, 100, 100, 1100])).toBeCloseTo(0.1, 14);
    expect(npv(0.1, [-1000, 100, 100, 1100])).toBeCloseTo(0, 9);
    // Losing money: a negative rate.
    expect(irr([-1000, 0, 810])).toBeCloseTo(-0.1, 14);
  });

  test("no rate when the flows never change sign", () => {
    expect(irr([-1000, -10, -5])).toBeUndefined();
    expect(irr([1000, 10])).toBeUndefined();
  });

  test("flows that change sign twice: the rate nearest 0 %", () => {
    // (1+r)² − 5(1+r) + 6 = 0 → r = 1 or 2 (100 %, 200 %).
    const flows = [-1, 5, -6];
    expect(irr(flows)).toBeCloseTo(1, 12);
  });
});

describe("projectHold", () => {
  test.each([
    ["buy", "buy" as Strategy, BUY],
    ["owned", "owned" as Strategy, OWNED],
  ])("%s: year one is the analysis's, and the IRR zeroes the flows' NPV", async (_n, strategy, body) => {
    const a = await analysis(strategy, body);
    const p = project(a, { years: 30 });
    const [one] = p.years;
    expect(one).toMatchObject({
      year: 1,
      revenueUSD: a.yearOneRevenueUSD,
      netOperatingIncomeUSD: a.yearOneOperatingIncomeUSD,
      debtServiceUSD: a.yearOneMorgageAndTaxesUSD,
      cashFlowUSD: a.yearOneCashFlowUSD,
      propertyValueUSD: body.purchasePriceUSD + (a.yearOneAppreciationUSD as number),
    });
    expect(p.summary.cashInvestedUSD).toBe(a.totalCashInvestment);
    expect(p.years).toHaveLength(30);
    const rate = (p.summary.irrPercentage as number) / 100;
    expect(Math.abs(npv(rate, p.flows))).toBeLessThan(1e-6);
    expect(p.flows[0]).toBe(-(a.totalCashInvestment as number));
    expect(p.flows.at(-1)).toBeCloseTo((p.years.at(-1)?.cashFlowUSD as number) + p.summary.saleProceedsUSD, 2);
  });

  test("a purchase's loan balance falls by year one's principal paydown", async () => {
    const a = await analysis("buy", BUY);
    const [one] = project(a, { years: 1 }).years;
    expect(450000 * 0.8 - (one?.loanBalanceUSD as number)).toBeCloseTo(a.yearOnePrincipalPaydownUSD as number, 1);
  });

  test("an owned property's loan is repaid within the hold: no payments after, only taxes", async () => {
    const a = await analysis("owned", OWNED);
    const p = project(a, { years: 8, appreciationPercentage: 0 });
    const taxes = 505000 * 0.01;
    // 4.5 years left: year 5 has six payments, years 6 to 8 none.
    expect(p.years[4]?.loanBalanceUSD).toBe(0);
    for (const y of p.years.slice(5)) expect(y.debtServiceUSD).toBeCloseTo(taxes, 2);
    expect((p.years[4]?.debtServiceUSD as number) - taxes).toBeCloseTo(
      ((p.years[1]?.debtServiceUSD as number) - taxes) / 2,
      1,
    );
    expect(p.years[7]?.equityUSD).toBe(505000);
  });

  test("growth rates: each year's revenue and expenses grow from year one's, defaults as documented", async () => {
    const a = await analysis("buy", BUY);
    const defaults = project(a, { years: 5 });
    expect(defaults.summary).toMatchObject({ ...PROJECTION_DEFAULTS, appreciationPercentage: 3 });
    const p = project(a, {
      years: 5,
      revenueGrowthPercentage: 5,
      expenseGrowthPercentage: 2,
      appreciationPercentage: 4,
      sellingCostPercentage: 8,
    });
    const expenses = (a.monthlyExpensesUSD as number) * 12;
    expect(p.years[4]?.revenueUSD).toBeCloseTo((a.yearOneRevenueUSD as number) * 1.05 ** 4, 2);
    expect(p.years[4]?.operatingExpensesUSD).toBeCloseTo(expenses * 1.02 ** 4, 1);
    expect(p.years[4]?.propertyValueUSD).toBeCloseTo(450000 * 1.04 ** 5, 2);
    expect(p.summary.sellingCostsUSD).toBeCloseTo(450000 * 1.04 ** 5 * 0.08, 2);
    expect(p.summary.saleProceedsUSD).toBeCloseTo(
      p.summary.salePriceUSD - p.summary.sellingCostsUSD - p.summary.loanPayoffUSD,
      2,
    );
    expect(p.summary.totalProfitUSD).toBeCloseTo(
      p.summary.totalCashFlowUSD + p.summary.saleProceedsUSD - p.summary.cashInvestedUSD,
      2,
    );
    expect(p.summary.equityMultiple).toBeCloseTo(
      (p.summary.totalCashFlowUSD + p.summary.saleProceedsUSD) / p.summary.cashInvestedUSD,
      12,
    );
    expect(p.summary.averageCashOnCashPercentage).toBeCloseTo(
      (p.summary.totalCashFlowUSD / 5 / p.summary.cashInvestedUSD) * 100,
      12,
    );
  });

  test("another price or financing: year one is STR.WHATIF's", async () => {
    const a = await analysis("buy", BUY);
    const w = whatIf(a, { purchasePriceUSD: 400000, interestRatePercentage: 7 });
    if (!w.ok) throw new Error(w.message);
    const p = project(a, { years: 3, purchasePriceUSD: 400000, interestRatePercentage: 7 });
    expect(p.years[0]).toMatchObject({
      revenueUSD: w.analysis.yearOneRevenueUSD,
      debtServiceUSD: w.analysis.yearOneMorgageAndTaxesUSD,
      cashFlowUSD: w.analysis.yearOneCashFlowUSD,
    });
    expect(p.summary.cashInvestedUSD).toBe(w.analysis.totalCashInvestment);
    expect(p.summary.purchasePriceUSD).toBe(400000);
  });

  test("refused: no purchase, or a hold out of range", async () => {
    const arb = await analysis("arb", {
      fullAddress: "1 Broadway, Nashville TN",
      monthlyRentUSD: 2200,
      bedrooms: 2,
      bathrooms: 1,
      accomodates: 4,
    });
    expect(projectHold(arb, { years: 5 })).toEqual({ ok: false, message: expect.stringMatching(/not a purchase/) });
    const a = await analysis("buy", BUY);
    expect(projectHold(a, { years: 31 })).toEqual({
      ok: false,
      message: "years must be a whole number from 1 to 30; got 31",
    });
    expect(projectHold(a, { years: 2.5 })).toEqual({ ok: false, message: expect.stringMatching(/whole number/) });
  });
});
