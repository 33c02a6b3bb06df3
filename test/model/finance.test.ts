import {
  MODEL_DEFAULTS,
  MortgageStrategyInputs,
  annualRevenue,
  arbModel,
  cohostModel,
  furnishingUSD,
  loanBalance,
  monthlyMortgagePayment,
  mortgageStrategyModel,
  mortgageYearOne,
} from "../../src/model";

/**
 * The financial model (docs/service/observed-behaviour.md, "The financial model"), checked against known
 * mortgage figures and against hand computations. Expected values never come from the functions
 * under test: amortisation is simulated month by month here.
 */

/** Balance after `months` payments of `payment`, simulated one month at a time. */
function simulateBalance(principal: number, annualRatePct: number, payment: number, months: number): number {
  const r = annualRatePct / 100 / 12;
  let balance = principal;
  for (let m = 0; m < months; m++) balance = balance * (1 + r) - payment;
  return balance;
}

/** Principal repaid over months (from, to], simulated. */
function simulatePaydown(principal: number, annualRatePct: number, payment: number, from: number, to: number): number {
  return (
    simulateBalance(principal, annualRatePct, payment, from) - simulateBalance(principal, annualRatePct, payment, to)
  );
}

describe("monthly mortgage payment (standard annuity)", () => {
  test.each([
    [360_000, 6, 30, 2_158.38],
    [100_000, 5, 15, 790.79],
    [300_000, 7, 30, 1_995.91],
    [500_000, 3.5, 20, 2_899.8],
  ])("%d at %d %% over %d years is about %d a month", (principal, rate, years, payment) => {
    expect(monthlyMortgagePayment(principal, rate, years)).toBeCloseTo(payment, 2);
  });

  test("at a zero rate it is the principal over the number of months", () => {
    expect(monthlyMortgagePayment(200_000, 0, 10)).toBeCloseTo(200_000 / 120, 10);
  });

  test("a zero length or nothing borrowed is no payment", () => {
    expect(monthlyMortgagePayment(360_000, 6, 0)).toBe(0);
    expect(monthlyMortgagePayment(0, 6, 30)).toBe(0);
    expect(monthlyMortgagePayment(-5, 6, 30)).toBe(0);
  });

  test("the payment pays the loan off exactly in n months", () => {
    const payment = monthlyMortgagePayment(250_000, 4.25, 25);
    expect(simulateBalance(250_000, 4.25, payment, 300)).toBeCloseTo(0, 4);
  });
});

describe("loan balance", () => {
  test("before any payment it is the whole principal", () => {
    expect(loanBalance(360_000, 6, 30, 0)).toBeCloseTo(360_000, 6);
  });

  test("after all n payments it is zero, and stays zero past n", () => {
    expect(loanBalance(360_000, 6, 30, 360)).toBeCloseTo(0, 6);
    expect(loanBalance(360_000, 6, 30, 400)).toBeCloseTo(0, 6);
  });

  test("after 12 and 180 months it matches a month-by-month simulation", () => {
    const payment = (360_000 * 0.005) / (1 - 1.005 ** -360);
    expect(loanBalance(360_000, 6, 30, 12)).toBeCloseTo(simulateBalance(360_000, 6, payment, 12), 4);
    expect(loanBalance(360_000, 6, 30, 12)).toBeCloseTo(355_579.16, 1);
    expect(loanBalance(360_000, 6, 30, 180)).toBeCloseTo(simulateBalance(360_000, 6, payment, 180), 4);
  });

  test("at a zero rate it falls in a straight line", () => {
    expect(loanBalance(120_000, 0, 10, 60)).toBeCloseTo(60_000, 6);
  });

  test("negative months count as none", () => {
    expect(loanBalance(100_000, 5, 10, -3)).toBeCloseTo(100_000, 6);
  });
});

describe("the mortgage over year one", () => {
  test("a new 30-year mortgage: 12 payments, about 4,420.84 of principal repaid", () => {
    const y = mortgageYearOne({
      purchasePriceUSD: 450_000,
      downPaymentPercentage: 20,
      interestRatePercentage: 6,
      mortgageLength: 30,
      yearsRemainingOnMortgage: 30,
    });
    expect(y.loanUSD).toBe(360_000);
    expect(y.monthlyPaymentUSD).toBeCloseTo(2_158.38, 2);
    expect(y.paymentsUSD).toBeCloseTo(12 * 2_158.3819, 2);
    expect(y.principalPaydownUSD).toBeCloseTo(4_420.84, 2);
  });

  test("a half-paid mortgage repays months 181 to 192, far more principal", () => {
    const y = mortgageYearOne({
      purchasePriceUSD: 450_000,
      downPaymentPercentage: 20,
      interestRatePercentage: 6,
      mortgageLength: 30,
      yearsRemainingOnMortgage: 15,
    });
    const payment = (360_000 * 0.005) / (1 - 1.005 ** -360);
    const expected = simulatePaydown(360_000, 6, payment, 180, 192);
    expect(y.principalPaydownUSD).toBeCloseTo(expected, 4);
    expect(y.principalPaydownUSD).toBeGreaterThan(10_000);
    expect(y.paymentsUSD).toBeCloseTo(12 * payment, 4);
  });

  test("half a year left: six payments and the last of the principal", () => {
    const y = mortgageYearOne({
      purchasePriceUSD: 200_000,
      downPaymentPercentage: 25,
      interestRatePercentage: 5,
      mortgageLength: 15,
      yearsRemainingOnMortgage: 0.5,
    });
    const payment = (150_000 * (0.05 / 12)) / (1 - (1 + 0.05 / 12) ** -180);
    expect(y.paymentsUSD).toBeCloseTo(6 * payment, 4);
    expect(y.principalPaydownUSD).toBeCloseTo(simulateBalance(150_000, 5, payment, 174), 3);
  });

  test("a paid-off mortgage costs nothing and repays nothing", () => {
    const y = mortgageYearOne({
      purchasePriceUSD: 200_000,
      downPaymentPercentage: 20,
      interestRatePercentage: 5,
      mortgageLength: 30,
      yearsRemainingOnMortgage: 0,
    });
    expect(y.paymentsUSD).toBe(0);
    expect(y.principalPaydownUSD).toBeCloseTo(0, 8);
  });
});

describe("buy and owned model fields", () => {
  const inputs: MortgageStrategyInputs = {
    purchasePriceUSD: 450_000,
    downPaymentPercentage: 20,
    interestRatePercentage: 6,
    mortgageLength: 30,
    yearsRemainingOnMortgage: 30,
    propertyTaxPercentage: 1,
    closingCostPercentage: 3,
    furnishingUSD: 10_250,
    appreciationPercentage: 3,
    yearOneRevenueUSD: 60_000,
    annualOperatingExpensesUSD: 18_000,
    ltrPerMonthUSD: 2_800,
    ltrMonthlyExpensesPercentage: 12,
  };
  const m = mortgageStrategyModel(inputs);
  // By hand: loan 360,000; payment 2,158.3819 → 25,900.58 a year; tax 1 % of 450,000 = 4,500.
  const payments = 12 * 2_158.381890549925;
  const mortgageAndTaxes = payments + 4_500;
  const operatingIncome = 60_000 - 18_000;
  const cashFlow = operatingIncome - mortgageAndTaxes;
  // Cash in: 20 % down (90,000) + 3 % closing (13,500) + furnishing (10,250).
  const cash = 90_000 + 13_500 + 10_250;
  const paydown = 4_420.842164196598;
  const appreciation = 13_500;

  test("echoes the financing terms", () => {
    expect(m).toMatchObject({
      downPaymentPercentage: 20,
      mortgageLength: 30,
      yearsRemainingOnMortgage: 30,
      interestRatePercentage: 6,
      propertyTaxPercentage: 1,
      ltrPerMonthUSD: 2_800,
      ltrMonthlyExpensesPercentage: 12,
    });
  });

  test("monthly figures are the yearly ones over 12", () => {
    expect(m.monthlyRevenueUSD).toBe(5_000);
    expect(m.monthlyExpensesUSD).toBe(1_500);
    expect(m.monthlyTaxesUSD).toBe(375);
    expect(m.yearOneRevenueUSD).toBe(60_000);
  });

  test("property tax is inside mortgage & taxes, not operating expenses", () => {
    expect(m.yearOneOperatingIncomeUSD).toBe(42_000);
    expect(m.yearOneMorgageAndTaxesUSD).toBeCloseTo(mortgageAndTaxes, 2);
    expect(m.yearOneMorgageAndTaxesUSD).toBeCloseTo(30_400.58, 2);
  });

  test("cash flow = operating income − mortgage & taxes", () => {
    expect(m.yearOneCashFlowUSD).toBeCloseTo(cashFlow, 2);
    expect(m.yearOneCashFlowUSD).toBeCloseTo(11_599.42, 2);
  });

  test("cap rate = operating income ÷ price", () => {
    expect(m.yearOneCapRatePercentage).toBe(9.33); // 42,000 / 450,000 = 9.333 %
  });

  test("cash-on-cash = cash flow ÷ (down payment + 3 % closing + furnishing)", () => {
    expect(m.totalCashInvestment).toBe(cash);
    expect(m.yearOneCashOnCashPercentage).toBeCloseTo((cashFlow / cash) * 100, 2);
    expect(m.yearOneCashOnCashPercentage).toBe(10.2);
  });

  test("ROI = (cash flow + principal paydown + appreciation) ÷ cash invested", () => {
    expect(m.yearOnePrincipalPaydownUSD).toBeCloseTo(paydown, 2);
    expect(m.yearOneAppreciationUSD).toBe(appreciation);
    expect(m.yearOneReturnOnInvestmentPercentage).toBeCloseTo(((cashFlow + paydown + appreciation) / cash) * 100, 2);
    expect(m.yearOneReturnOnInvestmentPercentage).toBe(25.95); // (11,599.42 + 4,420.84 + 13,500) / 113,750
  });

  test("an owned property 15 years into its mortgage repays more principal and pays the same", () => {
    const owned = mortgageStrategyModel({ ...inputs, yearsRemainingOnMortgage: 15 });
    const payment = 2_158.381890549925;
    expect(owned.yearOnePrincipalPaydownUSD).toBeCloseTo(simulatePaydown(360_000, 6, payment, 180, 192), 2);
    expect(owned.yearOneMorgageAndTaxesUSD).toBeCloseTo(mortgageAndTaxes, 2);
  });

  test("owned outright (no mortgage): mortgage & taxes is the tax alone", () => {
    const free = mortgageStrategyModel({
      ...inputs,
      mortgageLength: 0,
      yearsRemainingOnMortgage: 0,
      downPaymentPercentage: 0,
    });
    expect(free.yearOneMorgageAndTaxesUSD).toBe(4_500);
    expect(free.yearOneCashFlowUSD).toBe(42_000 - 4_500);
    expect(free.yearOnePrincipalPaydownUSD).toBe(0);
    // No down payment: cash in is closing costs and furnishing.
    expect(free.totalCashInvestment).toBe(13_500 + 10_250);
  });

  test("a zero-rate loan repays a straight twelfth-of-a-year share", () => {
    const zero = mortgageStrategyModel({ ...inputs, interestRatePercentage: 0 });
    expect(zero.yearOnePrincipalPaydownUSD).toBe(12_000); // 360,000 / 360 × 12
    expect(zero.yearOneMorgageAndTaxesUSD).toBe(12_000 + 4_500);
  });
});

describe("rental arbitrage", () => {
  const a = arbModel({
    monthlyRentUSD: 2_500,
    yearOneRevenueUSD: 50_000,
    annualOperatingExpensesUSD: 15_000,
    furnishingUSD: 8_250,
    depositMonths: 1,
  });

  test("revenue − rent − operating expenses", () => {
    expect(a.monthlyRentUSD).toBe(2_500);
    expect(a.yearOneRentUSD).toBe(30_000);
    expect(a.yearOneRevenueUSD).toBe(50_000);
    expect(a.monthlyRevenueUSD).toBeCloseTo(4_166.67, 2);
    expect(a.monthlyExpensesUSD).toBe(1_250);
    expect(a.yearOneOperatingIncomeUSD).toBe(35_000);
    expect(a.yearOneCashFlowUSD).toBe(5_000);
  });

  test("cash invested = deposit + furnishing; cash-on-cash against it", () => {
    expect(a.totalCashInvestment).toBe(10_750);
    expect(a.yearOneCashOnCashPercentage).toBe(46.51); // 5,000 / 10,750
  });

  test("a loss shows as negative cash flow and return", () => {
    const loss = arbModel({
      monthlyRentUSD: 4_000,
      yearOneRevenueUSD: 40_000,
      annualOperatingExpensesUSD: 12_000,
      furnishingUSD: 6_250,
      depositMonths: 2,
    });
    expect(loss.yearOneCashFlowUSD).toBe(-20_000);
    expect(loss.totalCashInvestment).toBe(14_250);
    expect(loss.yearOneCashOnCashPercentage).toBe(-140.35);
  });
});

describe("co-hosting", () => {
  test("commission = revenue × percentage; host return = revenue − commission − expenses", () => {
    expect(
      cohostModel({ yearOneRevenueUSD: 50_000, annualOperatingExpensesUSD: 15_000, cohostCommissionPercentage: 20 }),
    ).toEqual({
      yearOneRevenueUSD: 50_000,
      yearOneCohostCommissionUSD: 10_000,
      yearOneCohostReturnUSD: 25_000,
    });
  });

  test("amounts round to cents", () => {
    const c = cohostModel({
      yearOneRevenueUSD: 33_333.333,
      annualOperatingExpensesUSD: 1_000,
      cohostCommissionPercentage: 17.5,
    });
    expect(c.yearOneCohostCommissionUSD).toBe(5_833.33);
    expect(c.yearOneCohostReturnUSD).toBe(26_500);
  });
});

describe("revenue and defaults", () => {
  test("annual revenue = ADR × occupancy × 365", () => {
    expect(annualRevenue(200, 0.6)).toBeCloseTo(43_800, 8);
    expect(annualRevenue(0, 0.6)).toBe(0);
  });

  test("furnishing is 6,250 for one bedroom and 8,250 for two, as report pages show", () => {
    expect(furnishingUSD(1)).toBe(6_250);
    expect(furnishingUSD(2)).toBe(8_250);
  });

  test("a studio is furnished like one bedroom; each further bedroom adds 2,000", () => {
    expect(furnishingUSD(0)).toBe(6_250);
    expect(furnishingUSD(3)).toBe(10_250);
    expect(furnishingUSD(5)).toBe(14_250);
  });

  test("the defaults are the observed ones", () => {
    expect(MODEL_DEFAULTS).toMatchObject({
      downPaymentPercentage: 20,
      interestRatePercentage: 6,
      mortgageLength: 30,
      propertyTaxPercentage: 1,
      closingCostPercentage: 3,
      appreciationPercentage: 3,
    });
  });
});
