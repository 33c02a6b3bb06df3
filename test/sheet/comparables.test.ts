import { AnalysisData, COMPARABLE_COLUMNS, UNIT_FORMATS, normalizeAnalysis } from "../../src/contract";
import { NO_COMPARABLES, analysisOf, comparablesTable, isRectangular } from "../../src/sheet";
import { arbAnswer, buyAnswer, cohostAnswer, warningsOnlyAnswer } from "./fixtures";

function gridOrThrow(result: ReturnType<typeof comparablesTable>) {
  if (!result.ok) throw new Error(result.message);
  return result.grid;
}

describe("comparables table", () => {
  const grid = gridOrThrow(comparablesTable(analysisOf(buyAnswer)));

  test("a header of the catalogue's column labels and Warnings, then one row per comparable", () => {
    expect(grid[0]?.map((c) => c.value)).toEqual([...COMPARABLE_COLUMNS.map((c) => c.label), "Warnings"]);
    expect(grid).toHaveLength(4);
    expect(isRectangular(grid)).toBe(true);
  });

  test("each row holds the comparable's figures with the card's formats; occupancy as a fraction", () => {
    const row = grid[1];
    const at = (label: string) => row?.[COMPARABLE_COLUMNS.findIndex((c) => c.label === label)];
    expect(at("Listing")).toEqual({ value: "Listing 1", format: "@" });
    expect(at("Annual revenue")).toEqual({ value: 51000, format: UNIT_FORMATS.usd });
    expect(at("Occupancy")).toEqual({ value: 0.61, format: "0.0%" });
    expect(at("Distance")).toEqual({ value: 0.1, format: '0.0 "mi"' });
    expect(at("Listing link")).toEqual({ value: "https://listings.example/1", format: "@" });
    expect(at("Guests")).toEqual({ value: 7, format: UNIT_FORMATS.count });
  });

  test("maxRows caps the data rows, not the header", () => {
    const capped = gridOrThrow(comparablesTable(analysisOf(buyAnswer), 2));
    expect(capped).toHaveLength(3);
    expect(capped[2]?.[0]?.value).toBe("Listing 2");
    expect(gridOrThrow(comparablesTable(analysisOf(buyAnswer), 50))).toHaveLength(4);
    expect(gridOrThrow(comparablesTable(analysisOf(arbAnswer), null))).toHaveLength(2);
  });

  test.each([0, -1, 2.5, Number.NaN, "ten", true])("maxRows %p is refused, naming maxRows and the rule", (bad) => {
    const result = comparablesTable(analysisOf(buyAnswer), bad);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^maxRows must be a whole number of 1 or more; got /);
  });

  test("no comparables: the header and one row saying so, still a rectangle", () => {
    for (const analysis of [analysisOf(cohostAnswer), analysisOf(warningsOnlyAnswer)]) {
      const empty = gridOrThrow(comparablesTable(analysis));
      expect(empty).toHaveLength(2);
      expect(empty[1]?.[0]?.value).toBe(NO_COMPARABLES);
      expect(isRectangular(empty)).toBe(true);
    }
  });

  test("a comparable missing a figure has an empty cell there", () => {
    const analysis = analysisOf(buyAnswer);
    if (!analysis) throw new Error("fixture has an analysis");
    const partial = gridOrThrow(comparablesTable({ ...analysis, comparables: [{ name: "Bare listing" }] }));
    expect(partial[1]?.map((c) => c.value)).toEqual(["Bare listing", ...COMPARABLE_COLUMNS.slice(1).map(() => ""), ""]);
  });
});

describe("the nearest comparables, whatever order the service sends them in", () => {
  const data = buyAnswer.data as Record<string, unknown>;
  const base = (data.comparables as Record<string, unknown>[])[0] as Record<string, unknown>;
  const at = (name: string, distanceMiles: number | undefined) => ({ ...base, name, distanceMiles });
  const shuffled = [
    at("far", 4.2),
    at("no distance", undefined),
    at("nearest", 0.3),
    at("middle", 1.5),
    at("near", 0.8),
  ];
  const names = (grid: ReturnType<typeof gridOrThrow>) => grid.slice(1).map((r) => r[0]?.value);

  test("the table lists them nearest first, those without a distance last; maxRows keeps the nearest", () => {
    const answer = { ...buyAnswer, data: { ...data, comparables: shuffled } };
    expect(names(gridOrThrow(comparablesTable(analysisOf(answer))))).toEqual([
      "nearest",
      "near",
      "middle",
      "far",
      "no distance",
    ]);
    expect(names(gridOrThrow(comparablesTable(analysisOf(answer), 2)))).toEqual(["nearest", "near"]);
  });

  test("normalising an analysis orders its comparables, so the relay's maxComparables keeps the nearest", () => {
    const normal = normalizeAnalysis({ ...data, comparables: shuffled } as AnalysisData);
    expect(normal.comparables?.map((c) => c.name)).toEqual(["nearest", "near", "middle", "far", "no distance"]);
  });
});
