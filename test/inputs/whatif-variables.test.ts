import { findWhatIfVariable, readValueList } from "../../src/inputs";

describe("what-if variables and their value lists", () => {
  test("variables by their names and everyday words", () => {
    expect(["price", "Interest Rate", "term", "ADR", "commission", "p"].map((n) => findWhatIfVariable(n)?.name)).toEqual(["purchasePrice", "interestRatePct", "mortgageYears", "nightlyRate", "commissionPct", undefined]);
  });

  test("value lists from ranges or text; thousands commas are not separators", () => {
    const price = findWhatIfVariable("price")!;
    expect(readValueList([[400000], [450000]], price)).toEqual({ ok: true, values: [400000, 450000] });
    expect(readValueList([["$415,000; $420,000"]], price)).toEqual({ ok: true, values: [415000, 420000] });
    expect(readValueList("400000,450000", price)).toEqual({ ok: true, values: [400000, 450000] });
    const scenario = findWhatIfVariable("scenario")!;
    expect(readValueList([["p25, median, 75th, avg"]], scenario)).toEqual({ ok: true, values: ["p25", "p50", "p75", "avg"] });
    const occupancy = findWhatIfVariable("occupancy")!;
    expect(readValueList([["50%", 0.6, 70]], occupancy)).toEqual({ ok: true, values: [0.5, 0.6, 0.7] });
  });

  test("an empty or unreadable list names the rule", () => {
    const rate = findWhatIfVariable("rate")!;
    expect(readValueList([[""]], rate)).toEqual({ ok: false, message: "is empty: give one or more values" });
    expect(readValueList("high", rate)).toEqual({ ok: false, message: 'must be a percentage such as 6.5%; got "high"' });
  });
});
