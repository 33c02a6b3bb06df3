import { PERCENT_FIELD_MAX } from "../../src/contract";
import { CellInput, INPUT_FIELDS, findWhatIfVariable, readPercent, readValueList } from "../../src/inputs";

/**
 * docs/functions.md, "Percentages": 0 < x ≤ 1 is a fraction (a %-formatted cell), and a cell holding
 * exactly 1 — a %-formatted 100 % — is 100 % where the field allows 100 %, and 1 % where it does not.
 */
const read = (
  field: "interestRatePercentage" | "downPaymentPercentage" | "cohostCommissionPercentage",
  input: CellInput,
) => {
  const r = INPUT_FIELDS[field].read(input);
  return r.ok ? r.value : r.message;
};

describe("percentages", () => {
  test("a fraction up to 1 is read as a %-formatted cell holds it; text with % or above 1 as percent", () => {
    expect([0.065, "0.065", 6.5, "6.5", "6.5%", "0.5%", 0.5].map((v) => read("interestRatePercentage", v))).toEqual([
      6.5, 6.5, 6.5, 6.5, 6.5, 0.5, 50,
    ]);
  });

  test("1 is 100 % where the field allows 100 % (commission), and 1 % where it does not (interest rate, down payment)", () => {
    expect(PERCENT_FIELD_MAX).toEqual({
      interestRatePercentage: 15,
      downPaymentPercentage: 40,
      cohostCommissionPercentage: 100,
    });
    expect(read("cohostCommissionPercentage", 1)).toBe(100);
    expect(read("cohostCommissionPercentage", "1")).toBe(100);
    expect(read("cohostCommissionPercentage", "1%")).toBe(1);
    expect(read("interestRatePercentage", 1)).toBe(1);
    expect(read("downPaymentPercentage", 1)).toBe(1);
    // A reader told nothing of the field keeps 1 as 1 %.
    expect(readPercent(1)).toEqual({ ok: true, value: 1 });
  });

  test("what-if values follow the same rule, by the what-if's own range", () => {
    expect(readValueList([[1, 0.2]], findWhatIfVariable("commission")!)).toEqual({ ok: true, values: [100, 20] });
    expect(readValueList([[1, 0.2]], findWhatIfVariable("down")!)).toEqual({ ok: true, values: [100, 20] });
    expect(readValueList([[1, 0.065]], findWhatIfVariable("interest rate")!)).toEqual({ ok: true, values: [1, 6.5] });
    // Occupancy is a fraction: a %-formatted 100 % is full occupancy, not 1 %.
    expect(readValueList([[1, 0.5]], findWhatIfVariable("occupancy")!)).toEqual({ ok: true, values: [1, 0.5] });
  });
});
