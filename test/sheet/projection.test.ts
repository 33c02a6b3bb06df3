import { NO_MONTHLY_FIGURES } from "../../src/contract";
import { ProjectionSummary, ProjectionYear } from "../../src/model";
import {
  NO_IRR_TEXT,
  PROJECTION_COLUMN_LABELS,
  PROJECTION_MONTHS_TITLE,
  PROJECTION_SUMMARY_LABELS,
  PROJECTION_YEARS_TITLE,
  isRectangular,
  projectionGrid,
} from "../../src/sheet";

const summary: ProjectionSummary = {
  purchasePriceUSD: 450000,
  downPaymentPercentage: 20,
  interestRatePercentage: 6,
  mortgageLength: 30,
  appreciationPercentage: 3,
  revenueGrowthPercentage: 3,
  expenseGrowthPercentage: 3,
  sellingCostPercentage: 6,
  cashInvestedUSD: 113750,
  salePriceUSD: 463500,
  sellingCostsUSD: 27810,
  loanPayoffUSD: 355579.16,
  saleProceedsUSD: 80110.84,
  totalCashFlowUSD: 8208.61,
  totalProfitUSD: -25430.55,
  equityMultiple: 0.7764,
  averageCashOnCashPercentage: 7.216,
  irrPercentage: -22.36,
};
const year = (n: number): ProjectionYear => ({
  year: n,
  revenueUSD: 1,
  operatingExpensesUSD: 2,
  netOperatingIncomeUSD: 3,
  debtServiceUSD: 4,
  cashFlowUSD: 5,
  loanBalanceUSD: 6,
  propertyValueUSD: 7,
  equityUSD: 8,
});

describe("STR.PROJECTION's spill", () => {
  test("year one by month, under the years: a header and twelve rows", () => {
    const months = Array.from({ length: 12 }, (_, i) => ({
      month: `M${i + 1}`,
      revenueUSD: 100 + i,
      operatingExpensesUSD: 30,
      debtServiceUSD: 50,
      cashFlowUSD: 20 + i,
    }));
    const grid = projectionGrid([year(1)], summary, { months });
    expect(isRectangular(grid)).toBe(true);
    expect(grid.at(-14)?.[0]?.value).toBe(PROJECTION_MONTHS_TITLE);
    expect(
      grid
        .at(-13)
        ?.slice(0, 5)
        .map((c) => c.value),
    ).toEqual(["Month", "Revenue", "Operating expenses", "Debt service (mortgage & taxes)", "Cash flow"]);
    expect(grid.at(-1)?.slice(0, 5)).toEqual([
      { value: "M12" },
      { value: 111, format: "$#,##0" },
      { value: 30, format: "$#,##0" },
      { value: 50, format: "$#,##0" },
      { value: 31, format: "$#,##0" },
    ]);
  });

  test("the summary keeps its rows whatever the hold: row 19 is the IRR for 1 year or 30", () => {
    for (const years of [1, 30]) {
      const grid = projectionGrid(
        Array.from({ length: years }, (_, i) => year(i + 1)),
        summary,
      );
      expect(isRectangular(grid)).toBe(true);
      // The summary, a blank row, the years' title, header and rows, then a blank row, the months' title
      // and, without monthly figures, the one row that says so.
      expect(grid).toHaveLength(1 + PROJECTION_SUMMARY_LABELS.length + 1 + 2 + years + 3);
      expect(grid[18]?.slice(0, 2)).toEqual([{ value: "IRR" }, { value: -0.2236, format: "0.0%" }]);
      // The year table apart: a blank row, its own title, its own header.
      expect(grid[19]?.every((c) => c.value === "")).toBe(true);
      expect(grid[20]?.map((c) => c.value)).toEqual([PROJECTION_YEARS_TITLE, "", "", "", "", "", "", "", ""]);
      expect(grid[21]?.map((c) => c.value)).toEqual(PROJECTION_COLUMN_LABELS);
      expect(grid[21 + years]?.map((c) => c.value)).toEqual([years, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(grid.at(-2)?.[0]?.value).toBe(PROJECTION_MONTHS_TITLE);
      expect(grid.at(-1)?.[0]?.value).toBe(NO_MONTHLY_FIGURES);
    }
  });

  test("rates are fractions under a % format; money is money", () => {
    const grid = projectionGrid([year(1)], summary);
    const row = (label: string) => grid.find((r) => r[0]?.value === label)?.[1];
    expect(row("Down payment")).toEqual({ value: 0.2, format: "0.0%" });
    expect(row("Proceeds at sale")).toEqual({ value: 80110.84, format: "$#,##0" });
    expect(row("Equity multiple")).toEqual({ value: 0.7764, format: "0.00" });
  });

  test("a simulated analysis's projection says SANDBOX beside both titles; a live one says nothing", () => {
    const grid = projectionGrid([year(1)], summary, { sandbox: true });
    expect(grid[0]?.slice(0, 2).map((c) => c.value)).toEqual([
      "Projection: 1 year, sold at the end of year 1",
      "SANDBOX: simulated data",
    ]);
    expect(grid[20]?.slice(0, 2).map((c) => c.value)).toEqual([PROJECTION_YEARS_TITLE, "SANDBOX: simulated data"]);
    expect(
      projectionGrid([year(1)], summary)
        .flat()
        .some((c) => String(c.value).includes("SANDBOX")),
    ).toBe(false);
  });

  test("flows without an IRR say so in text, so a formula reading the cell fails instead of reading 0", () => {
    const grid = projectionGrid([year(1)], { ...summary, irrPercentage: undefined });
    expect(grid[18]?.[1]).toEqual({ value: NO_IRR_TEXT });
  });
});
