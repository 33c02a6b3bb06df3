import {
  CellInput,
  findWhatIfVariable,
  readSensitivityArguments,
  readValueList,
  readWhatIfArguments,
} from "../../src/inputs";

describe("what-if variables and their value lists", () => {
  test("variables by their names and everyday words", () => {
    expect(
      ["price", "Interest Rate", "term", "ADR", "commission", "p"].map((n) => findWhatIfVariable(n)?.name),
    ).toEqual(["purchasePrice", "interestRatePct", "mortgageYears", "nightlyRate", "commissionPct", undefined]);
  });

  test("value lists from ranges or text; thousands commas are not separators", () => {
    const price = findWhatIfVariable("price")!;
    expect(readValueList([[400000], [450000]], price)).toEqual({ ok: true, values: [400000, 450000] });
    expect(readValueList([["$415,000; $420,000"]], price)).toEqual({ ok: true, values: [415000, 420000] });
    expect(readValueList("400000,450000", price)).toEqual({ ok: true, values: [400000, 450000] });
    const scenario = findWhatIfVariable("scenario")!;
    expect(readValueList([["p25, median, 75th, avg"]], scenario)).toEqual({
      ok: true,
      values: ["p25", "p50", "p75", "avg"],
    });
    const occupancy = findWhatIfVariable("occupancy")!;
    expect(readValueList([["50%", 0.6, 70]], occupancy)).toEqual({ ok: true, values: [0.5, 0.6, 0.7] });
  });

  test("an empty or unreadable list names the rule", () => {
    const rate = findWhatIfVariable("rate")!;
    expect(readValueList([[""]], rate)).toEqual({ ok: false, message: "is empty: give one or more values" });
    expect(readValueList("high", rate)).toEqual({
      ok: false,
      message: 'must be a percentage such as 6.5%; got "high"',
    });
  });

  test("a value outside what a what-if can mean names the variable's range; the edges are accepted", () => {
    const cases: [string, CellInput, string][] = [
      ["down payment", 500, "must be a down payment from 0 to 100 %; got 500"],
      ["rate", "45%", "must be an interest rate from 0 to 30 %; got 45"],
      ["price", -250000, "must be a price in USD from 1 to 1,000,000,000; got -250000"],
      ["term", 80, "must be a mortgage length from 0 to 50 years; got 80"],
      ["occupancy", "140%", "must be an occupancy from 0 to 100 %; got 1.4"],
      ["commission", 150, "must be a commission from 0 to 100 %; got 150"],
      ["expenses", "-$200", "must be monthly expenses in USD from 0 to 10,000,000; got -200"],
    ];
    for (const [name, value, message] of cases)
      expect(readValueList([[value]], findWhatIfVariable(name)!)).toEqual({ ok: false, message });
    expect(readValueList([[0, 100]], findWhatIfVariable("down")!)).toEqual({ ok: true, values: [0, 100] });
    expect(readValueList([["0%", "30%"]], findWhatIfVariable("rate")!)).toEqual({ ok: true, values: [0, 30] });
    expect(readValueList([[0, 50]], findWhatIfVariable("term")!)).toEqual({ ok: true, values: [0, 50] });
  });
});

describe("what-if arguments by name", () => {
  test("each one given goes to its model input; omitted ones (null, blank) keep the analysis's", () => {
    expect(
      readWhatIfArguments({
        purchasePrice: "$415,000",
        downPaymentPct: [["25%"]],
        interestRatePct: null,
        mortgageYears: "",
        scenario: "bear",
      }),
    ).toEqual({
      ok: false,
      issues: [{ path: "scenario", message: 'must be one of p25, p50, p75, p90 or avg; got "bear"' }],
    });
    expect(
      readWhatIfArguments({ purchasePrice: 415000, downPaymentPct: 25, mortgageYears: 30, scenario: "75th" }),
    ).toEqual({
      ok: true,
      value: { purchasePriceUSD: 415000, downPaymentPercentage: 25, mortgageLength: 30, scenario: "p75" },
    });
    expect(readWhatIfArguments({ interestRatePct: null, scenario: undefined })).toEqual({ ok: true, value: {} });
  });

  test("every bad argument is named, in the order given", () => {
    const read = readWhatIfArguments({ purchasePrice: -1, downPaymentPct: 120, interestRatePct: "high" });
    expect(read.ok ? [] : read.issues.map((i) => i.path)).toEqual([
      "purchasePrice",
      "downPaymentPct",
      "interestRatePct",
    ]);
    expect(read.ok ? "" : read.issues[1]?.message).toBe("must be a down payment from 0 to 100 %; got 120");
  });
});

describe("STR.SENSITIVITY's arguments", () => {
  test("two axes and a numeric metric, each variable by any of its names", () => {
    const read = readSensitivityArguments("price", [[400000], [450000]], "Interest Rate", [["5, 6, 7"]], "DSCR");
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.rows).toMatchObject({ variable: { name: "purchasePrice" }, values: [400000, 450000] });
    expect(read.value.columns).toMatchObject({ variable: { name: "interestRatePct" }, values: [5, 6, 7] });
    expect(read.value.field.path).toBe("dscr");
  });

  test("every bad argument is named with its rule", () => {
    const read = readSensitivityArguments("color", [[1]], "interestRatePct", [["x"]], "address");
    expect(read.ok ? [] : read.issues.map((i) => i.path)).toEqual(["rowVariable", "columnValues", "metric"]);
    expect(read.ok ? "" : read.issues[0]?.message).toMatch(
      /^must be a what-if variable \(purchasePrice, downPaymentPct/,
    );
    expect(read.ok ? "" : read.issues[1]?.message).toBe('must be a percentage such as 6.5%; got "x"');
    expect(read.ok ? "" : read.issues[2]?.message).toMatch(/^must be a numeric field such as yearOneCashFlowUSD/);
    expect(readSensitivityArguments("price", [[""]], "rate", [[5]], "DSCR")).toEqual({
      ok: false,
      issues: [{ path: "rowValues", message: "is empty: give one or more values" }],
    });
  });

  test("a metric is a field of money, a percentage or a ratio, and nothing else", () => {
    const metricOf = (name: string) => readSensitivityArguments("price", [[1]], "rate", [[5]], name).ok;
    expect(["yearOneCashFlowUSD", "Cash-on-cash return", "DSCR", "revenue.p50"].map(metricOf)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["bedrooms", "", "nonsense"].map(metricOf)).toEqual([false, false, false]);
  });

  test("the same variable down and across is refused", () => {
    expect(readSensitivityArguments("price", [[1]], "purchasePrice", [[2]], "DSCR")).toEqual({
      ok: false,
      issues: [
        { path: "", message: "rowVariable and columnVariable are both purchasePrice: choose two different variables" },
      ],
    });
  });
});
