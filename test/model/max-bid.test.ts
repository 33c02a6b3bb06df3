import { Analysis, Strategy } from "../../src/contract";
import { BID_METRICS, BidMetric, findBidMetric, maxBid, whatIf } from "../../src/model";
import { sandboxAnalyses } from "../support/sandbox-analysis";

const { analysis, close } = sandboxAnalyses("sk_test_maxbid_0123");
afterAll(() => close());

const PURCHASES: [string, Strategy, Record<string, unknown>][] = [
  [
    "buy",
    "buy",
    { fullAddress: "12 Main St, Austin TX", purchasePriceUSD: 450000, bedrooms: 3, bathrooms: 2, accomodates: 8 },
  ],
  [
    "buy at 7.25 %",
    "buy",
    {
      fullAddress: "9 Ocean Dr, Miami FL",
      purchasePriceUSD: 612345,
      bedrooms: 2,
      bathrooms: 2,
      accomodates: 6,
      interestRatePercentage: 7.25,
    },
  ],
  [
    "owned, 22 years left",
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
];
const METRICS = Object.keys(BID_METRICS) as BidMetric[];
/** A target a little above or below the analysis's own figure, so the bid is not its price. */
const TARGET_SHIFT: Record<BidMetric, number> = {
  yearOneCashOnCashPercentage: 1.5,
  dscr: -0.1,
  yearOneCapRatePercentage: -0.75,
  yearOneCashFlowUSD: 2500,
};

const metricAt = (a: Analysis, metric: BidMetric, price: number, extra = {}) => {
  const r = whatIf(a, { ...extra, purchasePriceUSD: price });
  if (!r.ok) throw new Error(r.message);
  return BID_METRICS[metric].of(r.analysis) as number;
};

describe("maxBid: WHATIF meets the target at the price found, and not a cent above", () => {
  test.each(PURCHASES.flatMap(([name, s, body]) => METRICS.map((m) => [name, m, s, body] as const)))(
    "%s: %s",
    async (_name, metric, strategy, body) => {
      const a = await analysis(strategy, body);
      const target = (BID_METRICS[metric].of(a) as number) + TARGET_SHIFT[metric];
      const bid = maxBid(a, { metric, target });
      if (!bid.ok) throw new Error(bid.message);
      expect(Number.isInteger(Math.round(bid.priceUSD * 100))).toBe(true);
      expect(metricAt(a, metric, bid.priceUSD)).toBeGreaterThanOrEqual(target);
      expect(bid.value).toBe(metricAt(a, metric, bid.priceUSD));
      expect(metricAt(a, metric, bid.priceUSD + 0.01)).toBeLessThan(target);
      expect(metricAt(a, metric, bid.priceUSD + 100)).toBeLessThan(target);
    },
  );

  test("the cap rate's bid is operating income ÷ the target rate (the model's closed form)", async () => {
    const a = await analysis("buy", PURCHASES[0]![2]);
    const bid = maxBid(a, { metric: "yearOneCapRatePercentage", target: 8 });
    if (!bid.ok) throw new Error(bid.message);
    // Cap rate is rounded to a basis point: 8.00 % holds down to 7.995 %. WHATIF's income is revenue
    // less twelve months of the stated monthly expenses.
    const income = (a.yearOneRevenueUSD as number) - (a.monthlyExpensesUSD as number) * 12;
    expect(bid.priceUSD).toBeCloseTo((income / 7.995) * 100, 1);
  });

  test("financing and a scenario change the bid the way they should", async () => {
    const a = await analysis("buy", PURCHASES[0]![2]);
    const bid = (extra: object) => {
      const r = maxBid(a, { metric: "yearOneCashOnCashPercentage", target: 6, ...extra });
      if (!r.ok) throw new Error(r.message);
      return r.priceUSD;
    };
    expect(bid({ interestRatePercentage: 7.5 })).toBeLessThan(bid({}));
    expect(bid({ scenario: "p75" })).toBeGreaterThan(bid({}));
    expect(bid({ scenario: "p25" })).toBeLessThan(bid({}));
    const financed = { interestRatePercentage: 7.5, downPaymentPercentage: 30, mortgageLength: 15 };
    const price = bid(financed);
    expect(metricAt(a, "yearOneCashOnCashPercentage", price, financed)).toBeGreaterThanOrEqual(6);
    expect(metricAt(a, "yearOneCashOnCashPercentage", price + 0.01, financed)).toBeLessThan(6);
  });

  test("a target no price meets, and an analysis with no price, are refused with the reason", async () => {
    const a = await analysis("buy", PURCHASES[0]![2]);
    const none = maxBid(a, { metric: "yearOneCashFlowUSD", target: 1e7 });
    expect(none).toEqual({
      ok: false,
      reason: "unreachable",
      message: expect.stringMatching(/^no price from 1 USD gives year-one cash flow ≥ 10,000,000 USD: at 1 USD it is/),
    });
    const every = maxBid(a, { metric: "yearOneCashFlowUSD", target: -1e12 });
    expect(every).toEqual({
      ok: false,
      reason: "unreachable",
      message: expect.stringMatching(/^every price up to 1,000,000,000 USD gives/),
    });
    const arb = await analysis("arb", {
      fullAddress: "1 Broadway, Nashville TN",
      monthlyRentUSD: 2200,
      bedrooms: 2,
      bathrooms: 1,
      accomodates: 4,
    });
    expect(maxBid(arb, { metric: "yearOneCashFlowUSD", target: 0 })).toEqual({
      ok: false,
      reason: "no-price",
      message: expect.stringMatching(/not a purchase/),
    });
  });

  test("a metric that rises with the price (operating income below zero) has no highest price", async () => {
    const a = await analysis("buy", PURCHASES[0]![2]);
    // Expenses above revenue: the cap rate is negative and nears 0 as the price grows.
    const losing: Analysis = { ...a, monthlyExpensesUSD: ((a.yearOneRevenueUSD as number) * 2) / 12 };
    expect(metricAt(losing, "yearOneCapRatePercentage", 100_000)).toBeLessThan(
      metricAt(losing, "yearOneCapRatePercentage", 1_000_000),
    );
    expect(maxBid(losing, { metric: "yearOneCapRatePercentage", target: -50 })).toEqual({
      ok: false,
      reason: "unreachable",
      message: expect.stringMatching(/rises with the price/),
    });
  });
});

test("metric names as people write them", () => {
  expect(["Cash-on-cash", "CoC", "cash on cash return", "yearOneCashOnCashPercentage"].map(findBidMetric)).toEqual(
    Array(4).fill("yearOneCashOnCashPercentage"),
  );
  expect(["DSCR", "dscr"].map(findBidMetric)).toEqual(["dscr", "dscr"]);
  expect(["cap rate", "Cap Rate", "yearOneCapRatePercentage"].map(findBidMetric)).toEqual(
    Array(3).fill("yearOneCapRatePercentage"),
  );
  expect(["cash flow", "Year-one cash flow", "yearOneCashFlowUSD"].map(findBidMetric)).toEqual(
    Array(3).fill("yearOneCashFlowUSD"),
  );
  expect(findBidMetric("ROI")).toBeUndefined();
});
