import fs from "node:fs";
import path from "node:path";
import { RelayAnswer, UNIT_FORMATS } from "../../src/contract";
import { Grid, analysisCard, comparablesTable, analysisOf, projectionGrid } from "../../src/sheet";
import { buyAnswer } from "./fixtures";

/*
 * `0.#` shows a whole 3 as "3." in Excel. Counts and years are whole numbers under `0`; a fraction
 * (a half bath) under `0.0`. No format the code writes may end with `.#`.
 */

const ROOT = path.resolve(__dirname, "../..");
const SOURCES = ["src", "functions", "taskpane", "scripts"];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sourceFiles(p);
    return /\.(ts|js)$/.test(e.name) ? [p] : [];
  });
}

const formatsOf = (grid: Grid) => grid.flat().flatMap((c) => (c.format === undefined ? [] : [c.format]));
const byLabel = (grid: Grid, label: string) => grid.find((row) => row[0]?.value === label)?.[1];

test("no string literal in the sources is a number format ending with .#", () => {
  const found = SOURCES.flatMap((d) => sourceFiles(path.join(ROOT, d))).flatMap((file) =>
    [...fs.readFileSync(file, "utf8").matchAll(/(["'`])([^"'`\n]*\.#+)\1/g)].map(
      (m) => `${path.relative(ROOT, file)}: ${m[2]}`,
    ),
  );
  expect(found).toEqual([]);
  expect(Object.values(UNIT_FORMATS).filter((f) => /\.#+$/.test(f))).toEqual([]);
});

test("whole bedrooms, bathrooms and guests read 0; a half bath reads 0.0 (card and comparables)", () => {
  const card = analysisCard(buyAnswer);
  expect(byLabel(card, "Bedrooms")).toEqual({ value: 3, format: "0" });
  expect(byLabel(card, "Bathrooms")).toEqual({ value: 2, format: "0" });
  expect(byLabel(card, "Guests")).toEqual({ value: 8, format: "0" });
  expect(byLabel(card, "Mortgage length")).toEqual({ value: 30, format: "0" });
  const halfBath = RelayAnswer.parse({ ...buyAnswer, data: { ...buyAnswer.data, bathrooms: 2.5 } });
  expect(byLabel(analysisCard(halfBath), "Bathrooms")).toEqual({ value: 2.5, format: "0.0" });

  const comps = comparablesTable(analysisOf(buyAnswer));
  if (!comps.ok) throw new Error(comps.message);
  const header = comps.grid[0]?.map((c) => c.value) ?? [];
  const first = comps.grid[1] ?? [];
  expect(first[header.indexOf("Bathrooms")]).toEqual({ value: 2, format: "0" });
  expect(first[header.indexOf("Guests")]).toEqual({ value: 7, format: "0" });
  expect(formatsOf(comps.grid).filter((f) => f.endsWith(".#"))).toEqual([]);
  expect(formatsOf(card).filter((f) => f.endsWith(".#"))).toEqual([]);
});

test("the projection's mortgage length is a whole number of years under 0", () => {
  const grid = projectionGrid([], {
    purchasePriceUSD: 1,
    downPaymentPercentage: 20,
    interestRatePercentage: 6,
    mortgageLength: 30,
    appreciationPercentage: 3,
    revenueGrowthPercentage: 3,
    expenseGrowthPercentage: 3,
    sellingCostPercentage: 6,
    cashInvestedUSD: 1,
    salePriceUSD: 1,
    sellingCostsUSD: 1,
    loanPayoffUSD: 1,
    saleProceedsUSD: 1,
    totalCashFlowUSD: 1,
    totalProfitUSD: 1,
    equityMultiple: 1,
    averageCashOnCashPercentage: 1,
    irrPercentage: 1,
  });
  expect(byLabel(grid, "Mortgage length")).toEqual({ value: 30, format: "0" });
});
