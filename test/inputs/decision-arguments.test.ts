import { readAnalysisId, readBidArguments, readProjectionArguments } from "../../src/inputs";

const ID = "0123456789abcdef01234567";
const paths = (read: { ok: boolean; issues?: { path: string }[] }) => (read.ok ? [] : read.issues?.map((i) => i.path));

describe("STR.MAXBID's metric and target", () => {
  test("a target is read in its metric's unit", () => {
    expect(readBidArguments("CoC", "8%")).toEqual({
      ok: true,
      value: { metric: "yearOneCashOnCashPercentage", target: 8 },
    });
    expect(readBidArguments("DSCR", 1.25)).toEqual({ ok: true, value: { metric: "dscr", target: 1.25 } });
    expect(readBidArguments([["cash flow"]], "$12,000")).toEqual({
      ok: true,
      value: { metric: "yearOneCashFlowUSD", target: 12000 },
    });
  });

  test("a bad or missing metric is named alone; then a bad or missing target", () => {
    expect(readBidArguments("ROI", "high")).toEqual({
      ok: false,
      issues: [{ path: "metric", message: 'must be one of cash-on-cash, DSCR, cap rate or cash flow; got "ROI"' }],
    });
    expect(paths(readBidArguments(null, 1))).toEqual(["metric"]);
    expect(readBidArguments("DSCR", "high")).toEqual({
      ok: false,
      issues: [{ path: "target", message: 'must be a number; got "high"' }],
    });
    expect(readBidArguments("DSCR", null)).toEqual({
      ok: false,
      issues: [{ path: "target", message: "must be a number in the metric's unit; it is required" }],
    });
  });
});

describe("STR.PROJECTION's arguments", () => {
  test("the hold, the rates given and the financing given; omitted ones are left to the model", () => {
    expect(
      readProjectionArguments(
        10,
        { appreciationPct: "2%", revenueGrowthPct: null, sellingCostPct: 5 },
        { purchasePrice: "$400,000", interestRatePct: 6.5, mortgageYears: null },
      ),
    ).toEqual({
      ok: true,
      value: {
        years: 10,
        appreciationPercentage: 2,
        sellingCostPercentage: 5,
        purchasePriceUSD: 400000,
        interestRatePercentage: 6.5,
      },
    });
  });

  test("every bad argument is named: the hold, then the financing, then the rates", () => {
    const read = readProjectionArguments(31, { appreciationPct: "25%", sellingCostPct: -1 }, { downPaymentPct: 120 });
    expect(read).toEqual({
      ok: false,
      issues: [
        { path: "years", message: "must be a whole number of years from 1 to 30; got 31" },
        { path: "downPaymentPct", message: "must be a down payment from 0 to 100 %; got 120" },
        { path: "appreciationPct", message: "must be a yearly appreciation from -20 to 20 %; got 25" },
        { path: "sellingCostPct", message: "must be selling costs from 0 to 20 % of the sale price; got -1" },
      ],
    });
    expect(readProjectionArguments(null, {}, {})).toEqual({
      ok: false,
      issues: [{ path: "years", message: "must be a whole number of years from 1 to 30; it is required" }],
    });
  });
});

describe("the analysis id of a function that reads a stored analysis", () => {
  test("an id as text, trimmed, from a cell or a 1×1 range", () => {
    expect(readAnalysisId(` ${ID} `)).toEqual({ ok: true, value: ID });
    expect(readAnalysisId([[ID]])).toEqual({ ok: true, value: ID });
  });

  test("TRUE, an empty cell or text not of an id's form is refused, naming analysisId", () => {
    for (const bad of [true, null, "", "not an id!"]) expect(paths(readAnalysisId(bad))).toEqual(["analysisId"]);
    const read = readAnalysisId(true);
    expect(read.ok ? "" : read.issues[0]?.message).toMatch(/; got TRUE$/);
  });
});
