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

  test("1 is 1 % in every percent column, commission included; 100 % is written 100 or 100%", () => {
    for (const field of ["cohostCommissionPercentage", "interestRatePercentage", "downPaymentPercentage"] as const) {
      expect([read(field, 1), read(field, "1"), read(field, "1%")]).toEqual([1, 1, 1]);
    }
    expect([read("cohostCommissionPercentage", 100), read("cohostCommissionPercentage", "100%")]).toEqual([100, 100]);
    expect(readPercent(1)).toEqual({ ok: true, value: 1 });
  });

  test("what-if values, tried over 0–100 %, read a %-formatted 100 % (the number 1) as 100 %", () => {
    expect(readValueList([[1, 0.2]], findWhatIfVariable("commission")!)).toEqual({ ok: true, values: [100, 20] });
    expect(readValueList([[1, 0.2]], findWhatIfVariable("down")!)).toEqual({ ok: true, values: [100, 20] });
    expect(readValueList([[1, 0.065]], findWhatIfVariable("interest rate")!)).toEqual({ ok: true, values: [1, 6.5] });
    // Occupancy is a fraction: a %-formatted 100 % is full occupancy, not 1 %.
    expect(readValueList([[1, 0.5]], findWhatIfVariable("occupancy")!)).toEqual({ ok: true, values: [1, 0.5] });
  });
});
