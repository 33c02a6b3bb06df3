import { findField } from "../../src/contract";
import {
  analysisOf,
  cellValue,
  excelDateTime,
  fieldCell,
  readField,
  strategyOf,
  valueAt,
  warningTexts,
  warningsCell,
} from "../../src/sheet";
import { arbAnswer, buyAnswer, cohostAnswer, sparseAnswer, warningsOnlyAnswer } from "./fixtures";

function field(name: string) {
  const f = findField(name);
  if (!f) throw new Error(`no field ${name}`);
  return f;
}

describe("reading a field for a cell", () => {
  const analysis = analysisOf(buyAnswer);

  test("dot paths reach into the percentile objects", () => {
    expect(valueAt(analysis, "revenue.p90")).toBe(85000);
    expect(valueAt(analysis, "revenue.p99")).toBeUndefined();
    expect(valueAt(analysis, "fullAddress.length")).toBeUndefined();
    expect(valueAt(analysis, "constructor")).toBeUndefined();
  });

  test("percents become fractions, fractions and money stay as they are", () => {
    expect(readField(analysis, field("yearOneCashOnCashPercentage"))).toBe(0.075);
    expect(readField(analysis, field("interestRatePercentage"))).toBe(0.06);
    expect(readField(analysis, field("occupancy.p50"))).toBe(0.725);
    expect(readField(analysis, field("revenue.p50"))).toBe(60000);
  });

  test("percent → fraction gives the number Excel would store for the typed percent", () => {
    for (const [percent, fraction] of [
      [8.53, 0.0853],
      [72.5, 0.725],
      [7, 0.07],
      [0.1, 0.001],
      [33.333, 0.33333],
    ]) {
      expect(cellValue(percent, "percent")).toBe(fraction);
    }
  });

  test("missing is an empty string, never 0 or undefined", () => {
    const sparse = analysisOf(sparseAnswer);
    expect(readField(sparse, field("yearOneCashFlowUSD"))).toBe("");
    expect(readField(sparse, field("adr.p50"))).toBe("");
    expect(readField(undefined, field("revenue.p50"))).toBe("");
    expect(fieldCell(sparse, field("adr.p50"))).toEqual({ value: "" });
    expect(cellValue(Number.NaN, "usd")).toBe("");
    expect(cellValue(null, "usd")).toBe("");
    expect(cellValue({ nested: 1 }, "text")).toBe("");
  });

  test("a value keeps its unit's format", () => {
    expect(fieldCell(analysis, field("yearOneCashFlowUSD"))).toEqual({ value: 8400, format: "$#,##0" });
    expect(fieldCell(analysis, field("mortgageLength"))).toEqual({ value: 30, format: "0" });
  });
});

describe("what an answer holds", () => {
  test("analysisOf types the relay's data and is undefined without it", () => {
    expect(analysisOf(buyAnswer)?.revenue.p50).toBe(60000);
    expect(analysisOf(warningsOnlyAnswer)).toBeUndefined();
  });

  describe("data is normalised here, whichever relay answered", () => {
    // Occupancy in percent and no revenue percentiles: what an older relay may have kept unrepaired.
    const unrepaired = () => ({
      _id: "a1",
      occupancyRatePercentage: 70,
      occupancy: { p25: 55, p50: 70, p75: 80, p90: 88, avg: 69 },
      adr: { p50: 200 },
      ratePerNightUSD: 200,
      comparables: [],
    });

    test("unrepaired data is normalised", () => {
      const answer = { data: unrepaired() };
      const analysis = analysisOf(answer);
      expect(analysis).not.toBe(answer.data);
      expect(analysis?.occupancy.p50).toBe(0.7);
      expect(analysis?.revenue.avg).toBeCloseTo(200 * 0.7 * 365, 2);
    });

    test("data that lacks what every normalised analysis has gets it", () => {
      const { comparables: _none, ...withoutComparables } = { ...analysisOf(buyAnswer) } as Record<string, unknown>;
      for (const data of [
        { ...unrepaired(), revenue: "n/a" },
        withoutComparables,
        { ...withoutComparables, comparables: [null] },
      ]) {
        const analysis = analysisOf({ data });
        expect(Array.isArray(analysis?.comparables)).toBe(true);
        expect(typeof analysis?.revenue).toBe("object");
      }
    });

    test("the same data is normalised once: a recalculation reads the analysis it already has", () => {
      const answer = { data: unrepaired() };
      expect(analysisOf(answer)).toBe(analysisOf({ ...answer }));
    });
  });

  test("strategyOf: the caller's word, the relay's operation, then the fields", () => {
    expect(strategyOf(buyAnswer)).toBe("buy");
    expect(strategyOf(buyAnswer, "owned")).toBe("owned");
    expect(strategyOf(arbAnswer)).toBe("arb");
    expect(strategyOf(cohostAnswer)).toBe("cohost");
    expect(strategyOf({ ...arbAnswer, relay: { ...arbAnswer.relay, operation: "enhance" } })).toBe("arb");
    expect(strategyOf({ ...buyAnswer, relay: { ...buyAnswer.relay, operation: "enhance" } })).toBe("buy");
    expect(strategyOf(warningsOnlyAnswer)).toBeUndefined();
  });

  test("warnings as text, whatever their shape, blanks dropped", () => {
    expect(warningTexts({ warnings: ["a", { message: "b" }, { code: 7 }, "  "] })).toEqual(["a", "b", '{"code":7}']);
    expect(warningTexts({})).toEqual([]);
  });

  test("warningsCell: empty when none, ⚠ and a pipe between them otherwise", () => {
    expect(warningsCell([])).toBe("");
    expect(warningsCell(["one"])).toBe("⚠ one");
    expect(warningsCell(["one", "two; three"])).toBe("⚠ one | two; three");
    expect(warningsCell(["x".repeat(40_000)])).toHaveLength(32_767);
  });
});

describe("excelDateTime", () => {
  test("an ISO instant as Excel's serial, at a given offset", () => {
    expect(excelDateTime("1899-12-31T00:00:00Z", 0)).toBe(1);
    expect(excelDateTime("2025-06-01T12:00:00Z", 0)).toBe(45809.5);
    expect(excelDateTime("2025-06-01T12:00:00Z", 120)).toBeCloseTo(45809.5 + 2 / 24, 10);
  });

  test("defaults to the local wall clock", () => {
    const iso = "2025-06-01T12:00:00Z";
    expect(excelDateTime(iso)).toBe(excelDateTime(iso, -new Date(iso).getTimezoneOffset()));
  });

  test("text that is not a date gives undefined", () => {
    expect(excelDateTime("yesterday")).toBeUndefined();
  });
});
